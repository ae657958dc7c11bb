#!/usr/bin/env bash
# System tools some tests drive (nginx for the TLS gateway test, wrk for the benchmark smoke test,
# openssl for certificates, chromium for the policy report's HTML page; on CI also podman, runc and mmdebstrap, which build and run the
# container image in tests/deploy/test_image.py). Installed from Debian's packages when missing
# and we may; otherwise say so — on CI (CI=true) the tests that need them then fail rather than
# skip. The container tools are only installed on CI: they are large and a developer's machine
# may already run another engine.
set -u
missing=()
command -v nginx >/dev/null 2>&1 || missing+=(nginx-light)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
case ${CI:-} in
  1|true|yes)
    command -v podman >/dev/null 2>&1 || missing+=(podman)
    command -v runc >/dev/null 2>&1 || missing+=(runc)
    command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
    ;;
esac
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages: ${missing[*]}"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}") >/dev/null \
    || echo "warning: could not install ${missing[*]}; tests that need them will not run" >&2
else
  echo "note: missing system packages ${missing[*]} (install them with apt-get as root to run every test)" >&2
fi
exit 0
