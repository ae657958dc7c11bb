"""a207-router-mcp: deterministic intent router and safety gate, served as a streamable-HTTP MCP service."""

__version__ = "0.1.0"
