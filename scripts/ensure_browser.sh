#!/bin/sh
# The run viewer's tests (tests/viewing/test_view_browser.py) drive a real headless Chromium
# through chromedriver: Debian's `chromium` and `chromium-driver` packages. `make test` (through
# `make setup-dev`) runs this first. It installs both with apt-get where this machine allows it
# (as root, or with passwordless sudo), and otherwise stops at once with the command to run.
#
#   SILO_GYM_CHROMIUM, SILO_GYM_CHROMEDRIVER   the two programs (default /usr/bin/chromium and
#                                              /usr/bin/chromedriver, where Debian puts them)
#
# Exit status: 0 when both are there (or were just installed), 1 otherwise.
set -u

chromium=${SILO_GYM_CHROMIUM:-/usr/bin/chromium}
driver=${SILO_GYM_CHROMEDRIVER:-/usr/bin/chromedriver}
packages="chromium chromium-driver"

present() {
  [ -x "$chromium" ] && [ -x "$driver" ]
}

missing() {
  for program in "$chromium" "$driver"; do
    [ -x "$program" ] || printf ' %s' "$program"
  done
}

# Run a command as root: directly when we are root, else through sudo (set in $run below).
as_root() {
  if [ -n "$run" ]; then
    sudo DEBIAN_FRONTEND=noninteractive "$@"
  else
    DEBIAN_FRONTEND=noninteractive "$@"
  fi
}

present && exit 0

if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    run=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    run="sudo"
  else
    echo "error: the browser tests need Chromium and chromedriver; missing:$(missing)." >&2
    echo "Install them, then run make again:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y $packages" >&2
    exit 1
  fi
  echo "== installing $packages with apt-get (for the run viewer's browser tests)"
  # shellcheck disable=SC2086  # $packages is two words
  if ! { as_root apt-get update -qq && as_root apt-get install -y -qq $packages; }; then
    echo "error: apt-get could not install $packages. Install them, then run make again:" >&2
    echo "    ${run:+sudo }apt-get update && ${run:+sudo }apt-get install -y $packages" >&2
    exit 1
  fi
  present && exit 0
  echo "error: $packages are installed, but$(missing) is still missing; point SILO_GYM_CHROMIUM" \
    "and SILO_GYM_CHROMEDRIVER at the two programs." >&2
  exit 1
fi

echo "error: the browser tests need Chromium and chromedriver; missing:$(missing)." >&2
echo "This machine has no apt-get: install Chromium and the chromedriver of the same version," >&2
echo "then run make again with SILO_GYM_CHROMIUM=/path/to/chromium SILO_GYM_CHROMEDRIVER=/path/to/chromedriver." >&2
exit 1
