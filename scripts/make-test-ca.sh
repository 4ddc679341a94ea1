#!/usr/bin/env bash
# Test PKI for the emulators' mutual TLS: a CA, a server certificate for
# 127.0.0.1/localhost, and a client certificate (PEM + PKCS#12) shaped like a
# Spanish representative certificate (serialNumber = NIF of the demo company).
# FOR TESTS ONLY: the keys are unencrypted and the CA is throw-away.
#
# Usage: scripts/make-test-ca.sh [out-dir] [p12-password] [client-nif]
#   out-dir       default ./data/test-ca
#   p12-password  default "changeit" (or $POS_TEST_P12_PASSWORD)
#   client-nif    default B12345674 (COMERCIAL DEMO SL)
set -euo pipefail

OUT="${1:-./data/test-ca}"
PASS="${2:-${POS_TEST_P12_PASSWORD:-changeit}}"
NIF="${3:-B12345674}"
DAYS=825

command -v openssl >/dev/null 2>&1 || { echo "openssl not found" >&2; exit 2; }
mkdir -p "$OUT"
cd "$OUT"
umask 077

# CA
openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days "$DAYS" \
  -keyout ca.key -out ca.crt \
  -subj "/C=ES/O=POS Emulators Test CA/CN=POS Emulators Test Root" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null

# Server certificate (127.0.0.1 and localhost)
openssl req -newkey rsa:2048 -nodes -sha256 -keyout server.key -out server.csr \
  -subj "/C=ES/O=POS Emulators/CN=localhost" 2>/dev/null
cat > server.ext <<EXT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost
EXT
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
  -days "$DAYS" -sha256 -extfile server.ext -out server.crt 2>/dev/null

# Client certificate, subject like a representative certificate of an SL
openssl req -newkey rsa:2048 -nodes -sha256 -keyout client.key -out client.csr \
  -subj "/C=ES/O=COMERCIAL DEMO SL/serialNumber=VATES-${NIF}/CN=COMERCIAL DEMO SL - ${NIF}" 2>/dev/null
cat > client.ext <<EXT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth
EXT
openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
  -days "$DAYS" -sha256 -extfile client.ext -out client.crt 2>/dev/null

openssl pkcs12 -export -inkey client.key -in client.crt -certfile ca.crt \
  -name "COMERCIAL DEMO SL" -out client.p12 -passout "pass:${PASS}"

rm -f server.csr client.csr server.ext client.ext ca.srl
chmod 600 ./*.key client.p12
chmod 644 ca.crt server.crt client.crt
echo "test CA written to $(pwd): ca.crt server.{key,crt} client.{key,crt,p12}"
