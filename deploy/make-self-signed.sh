#!/bin/sh
# Create a throwaway CA and a server certificate signed by it, for local use of the nginx gateway
# (deploy/compose.yaml) and for tests. Never for production.
#
#   deploy/make-self-signed.sh [DIR] [HOSTNAME...]
#
# DIR defaults to deploy/certs (git-ignored). Extra HOSTNAMEs are added as DNS SANs next to
# localhost, router-gateway and 127.0.0.1. Writes ca.crt, ca.key, server.crt, server.key
# (keys mode 600, certs 644). Existing files are replaced.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-"$here/certs"}
[ "$#" -gt 0 ] && shift
days=${CERT_DAYS:-30}

command -v openssl >/dev/null 2>&1 || { echo "make-self-signed: openssl not found" >&2; exit 2; }

mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
umask 077

san="DNS:localhost,DNS:router-gateway,IP:127.0.0.1,IP:::1"
for name in "$@"; do
    san="$san,DNS:$name"
done

# CA: EC P-256, constrained to signing certificates.
openssl ecparam -name prime256v1 -genkey -noout -out "$work/ca.key"
openssl req -x509 -new -sha256 -days "$days" -key "$work/ca.key" -out "$work/ca.crt" \
    -subj "/CN=a207-router local CA" \
    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -addext "subjectKeyIdentifier=hash"

# Server key and certificate.
openssl ecparam -name prime256v1 -genkey -noout -out "$work/server.key"
openssl req -new -sha256 -key "$work/server.key" -out "$work/server.csr" -subj "/CN=localhost"
cat > "$work/server.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=$san
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid,issuer
EXT
openssl x509 -req -sha256 -days "$days" -in "$work/server.csr" \
    -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial \
    -extfile "$work/server.ext" -out "$work/server.crt" 2>/dev/null

openssl verify -CAfile "$work/ca.crt" "$work/server.crt" >/dev/null

for f in ca.key server.key; do
    cp "$work/$f" "$dir/$f" && chmod 600 "$dir/$f"
done
for f in ca.crt server.crt; do
    cp "$work/$f" "$dir/$f" && chmod 644 "$dir/$f"
done
echo "make-self-signed: wrote ca.crt, ca.key, server.crt, server.key to $dir"
