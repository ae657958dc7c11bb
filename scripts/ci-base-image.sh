#!/usr/bin/env bash
# Build (or reuse) CI's stand-in for the production base image `debian:bookworm-slim`, and print
# its reference on stdout.
#
#   scripts/ci-base-image.sh            # prints e.g. localhost/a207-bookworm-slim:3f9c0a1b2c3d
#
# Image registries cannot be reached from CI, so `FROM debian:bookworm-slim` cannot be pulled.
# The Dockerfile takes its base through `ARG BASE_IMAGE`; CI passes this image instead: Debian
# bookworm, variant minbase (the package set of debian:*-slim), the same three apt sources, and
# the same dpkg path excludes as the slim images (no docs, man pages or locales), and /usr merged
# by directory symlinks as debootstrap does (mmdebstrap's own default pulls usrmerge and with it
# the whole of perl: 127 MB instead of ~75). Everything else
# — Debian's python3, the venv, the locked wheels — is installed by the Dockerfile itself, in CI
# exactly as in production.
#
# Cache: the tag is a hash of the recipe below (this file), so a second run reuses the image
# (~0 s) and a changed recipe builds a new one (~30-90 s: mmdebstrap downloads ~30 MB from the
# configured Debian mirror). CI_BASE_REFRESH=1 rebuilds anyway, to pick up Debian security
# updates on a long-lived CI machine. Needs root, mmdebstrap and podman
# (scripts/ensure-system-tools.sh installs them when CI=true).
set -euo pipefail

NAME=localhost/a207-bookworm-slim
SUITE=bookworm
MIRRORS=(
    "deb http://deb.debian.org/debian $SUITE main"
    "deb http://deb.debian.org/debian $SUITE-updates main"
    "deb http://deb.debian.org/debian-security $SUITE-security main"
)
# /etc/dpkg/dpkg.cfg.d/docker of the official slim images (debuerreotype --slimify).
DPKG_OPTS=(
    "path-exclude=/usr/share/doc/*"
    "path-include=/usr/share/doc/*/copyright"
    "path-exclude=/usr/share/man/*"
    "path-exclude=/usr/share/groff/*"
    "path-exclude=/usr/share/info/*"
    "path-exclude=/usr/share/lintian/*"
    "path-exclude=/usr/share/linda/*"
    "path-exclude=/usr/share/locale/*"
)

key=$(sha256sum "$0" | cut -c1-12)
ref="$NAME:$key"

if [ "${CI_BASE_REFRESH:-0}" != 1 ] && podman image exists "$ref"; then
    echo "ci-base-image: reusing $ref" >&2
    echo "$ref"
    exit 0
fi

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
opts=()
for o in "${DPKG_OPTS[@]}"; do opts+=(--dpkgopt="$o"); done
started=$(date +%s)
mmdebstrap --quiet --variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr "${opts[@]}" "$SUITE" "$workdir/base.tar" "${MIRRORS[@]}" >&2
podman import --quiet "$workdir/base.tar" "$ref" >/dev/null
echo "ci-base-image: built $ref in $(($(date +%s) - started)) s" >&2
echo "$ref"
