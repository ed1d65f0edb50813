#!/bin/sh
# Installs a prebuilt Gatehouse release bundle on Debian >= 13 or Ubuntu >= 24.04 (amd64 or arm64), or upgrades an
# installation in place. It never builds from source: the bundle for this architecture must exist in the release
# location and match its SHA256SUMS line, or nothing is installed. Safe to run again. `--uninstall` removes it
# again (configuration and data stay unless --purge). Usage: install.sh --help.
# What it installs, and where: docs/operations.md.
set -eu

NAME=gatehouse
UNIT=gatehouse.service

usage() {
  cat <<'EOF'
Usage: install.sh --from URL|DIR [--channel stable|rc] [--version VERSION] [--no-setup] [-- SETUP OPTIONS]
       install.sh --uninstall [--purge]

  --from URL|DIR   release location: an https:// URL or a local directory laid out as
                   <channel>/LATEST and <channel>/<version>/{SHA256SUMS,gatehouse-<version>-linux-<arch>.tar.gz}
                   (default: $GATEHOUSE_RELEASES)
  --channel C      stable (default) or rc
  --version V      install this version instead of the channel's latest
  --no-setup       install the files only; run `gatehouse setup` later
  --root DIR       install under DIR instead of /, reading DIR/etc/os-release (for tests: systemctl
                   still acts on this host)
  -- ...           everything after -- is passed to `gatehouse setup` (e.g. --domain id.example.com)
  --uninstall      stop and disable the service, remove the unit, the command link and /opt/gatehouse; keep
                   /etc/gatehouse (configuration, secrets), /var/lib/gatehouse, /var/log/gatehouse and the user
  --purge          with --uninstall: remove those too (the database itself is left alone)
EOF
}

fail() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}
say() { printf '%s\n' "$*"; }

FROM=${GATEHOUSE_RELEASES:-}
CHANNEL=stable
VERSION=
SETUP=yes
ROOT=
UNINSTALL=no
PURGE=no
while [ $# -gt 0 ]; do
  case $1 in
  --from) [ $# -ge 2 ] || fail "--from needs a URL or directory"; FROM=$2; shift 2 ;;
  --channel) [ $# -ge 2 ] || fail "--channel needs stable or rc"; CHANNEL=$2; shift 2 ;;
  --version) [ $# -ge 2 ] || fail "--version needs a version"; VERSION=$2; shift 2 ;;
  --no-setup) SETUP=no; shift ;;
  --root) [ $# -ge 2 ] || fail "--root needs a directory"; ROOT=${2%/}; shift 2 ;;
  --uninstall) UNINSTALL=yes; shift ;;
  --purge) PURGE=yes; shift ;;
  -h | --help) usage; exit 0 ;;
  --) shift; break ;;
  *) usage >&2; fail "unknown option: $1" ;;
  esac
done
# What is left in "$@" goes to `gatehouse setup`.

if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then fail "run as root (sudo sh install.sh ...)"; fi
[ "$PURGE" = no ] || [ "$UNINSTALL" = yes ] || fail "--purge goes with --uninstall"

# systemd runs when PID 1 is systemd, which then keeps /run/systemd/system (sd_booted(3)); a container started
# without it (PID 1 a shell or an init of its own) has systemctl installed but nothing that answers it.
systemd_running() { [ -d "$ROOT/run/systemd/system" ]; }

# --- Uninstall -------------------------------------------------------------------------------------------------------
if [ "$UNINSTALL" = yes ]; then
  if systemd_running && [ -f "$ROOT/etc/systemd/system/$UNIT" ]; then
    systemctl disable --now "$UNIT" || fail "systemctl disable --now $UNIT failed (see above); nothing was removed"
  fi
  rm -f "$ROOT/etc/systemd/system/$UNIT"
  rm -rf "$ROOT/etc/systemd/system/$UNIT.d"
  # A unit that had failed would still be listed (not-found, failed) after its file is gone: forget it.
  if systemd_running; then
    systemctl daemon-reload
    systemctl reset-failed "$UNIT" 2>/dev/null || true
  fi
  [ "$(readlink "$ROOT/usr/local/bin/gatehouse" 2>/dev/null)" = "/opt/$NAME/current/bin/gatehouse" ] &&
    rm -f "$ROOT/usr/local/bin/gatehouse"
  # ROOT is empty on a real host (only tests pass --root): guard the name, never the prefix.
  rm -rf "$ROOT/opt/${NAME:?}"
  say "Removed $UNIT, /usr/local/bin/gatehouse and /opt/$NAME"
  if [ "$PURGE" = yes ]; then
    rm -rf "$ROOT/etc/${NAME:?}" "$ROOT/var/lib/${NAME:?}" "$ROOT/var/log/${NAME:?}"
    if grep -q "^$NAME:" "$ROOT/etc/passwd" 2>/dev/null; then
      if [ -n "$ROOT" ]; then userdel --root "$ROOT" "$NAME"; else userdel "$NAME"; fi
    fi
    say "Purged /etc/$NAME, /var/lib/$NAME, /var/log/$NAME and the user $NAME. The database was left alone."
  else
    say "Kept /etc/$NAME (configuration, secrets), /var/lib/$NAME, /var/log/$NAME and the user $NAME: --purge removes them"
  fi
  exit 0
fi

[ -n "$FROM" ] || fail "no release location: pass --from URL|DIR (or set GATEHOUSE_RELEASES)"
case $CHANNEL in stable | rc) ;; *) fail "unknown channel \"$CHANNEL\": use stable or rc" ;; esac

# --- Host: distribution, release and architecture -----------------------------------------------------------------
os_release=$ROOT/etc/os-release
[ -r "$os_release" ] || os_release=$ROOT/usr/lib/os-release
[ -r "$os_release" ] || fail "cannot read /etc/os-release: Gatehouse supports Debian 13 or newer and Ubuntu 24.04 or newer"
# Read the two fields without sourcing the file (it is data, not a script).
os_field() { sed -n "s/^$1=//p" "$os_release" | head -n 1 | tr -d '"'"'"; }
os_id=$(os_field ID)
os_version=$(os_field VERSION_ID)
os_name=$(os_field PRETTY_NAME)
major=${os_version%%.*}
minor=$(printf '%s' "$os_version" | sed -n 's/^[0-9]*\.\([0-9]*\).*/\1/p')
supported=no
case $os_id in
debian) case $major in '' | *[!0-9]*) ;; *) [ "$major" -ge 13 ] && supported=yes ;; esac ;;
ubuntu)
  case $major$minor in
  '' | *[!0-9]*) ;;
  *) if [ "$major" -gt 24 ] || { [ "$major" -eq 24 ] && [ "${minor:-0}" -ge 4 ]; }; then supported=yes; fi ;;
  esac
  ;;
esac
[ "$supported" = yes ] ||
  fail "unsupported distribution: ${os_name:-$os_id $os_version}. Gatehouse supports Debian 13 or newer and Ubuntu 24.04 or newer."

machine=$(uname -m)
case $machine in
x86_64 | amd64) ARCH=x64 MULTIARCH=x86_64-linux-gnu ;;
aarch64 | arm64) ARCH=arm64 MULTIARCH=aarch64-linux-gnu ;;
*) fail "unsupported architecture: $machine. Gatehouse release bundles exist for amd64 (x86_64) and arm64 (aarch64)." ;;
esac

for tool in sha256sum tar useradd systemctl; do command -v "$tool" >/dev/null || fail "$tool is required"; done
systemd_running ||
  fail "systemd is not running on this host (no /run/systemd/system; a container?): Gatehouse installs as a systemd service; nothing was installed"

# --- Release: version, download, verification ---------------------------------------------------------------------
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM

# fetch <path under the release location> <destination>: false when it does not exist.
case $FROM in
https://*)
  command -v curl >/dev/null || fail "curl is required to download from $FROM"
  # curl exits 22 for an HTTP error status (the file is not there); anything else (TLS, DNS, network) stops here.
  fetch() {
    status=0
    curl --proto '=https' --tlsv1.2 -fsSL -o "$2" "${FROM%/}/$1" 2>"$WORK/curl.err" || status=$?
    [ "$status" -eq 22 ] && return 1
    [ "$status" -eq 0 ] || fail "cannot download ${FROM%/}/$1: $(cat "$WORK/curl.err")"
  }
  ;;
http://* | ftp://*) fail "refusing $FROM: the release location must be https:// or a local directory" ;;
*)
  [ -d "$FROM" ] || fail "release location $FROM is not a directory"
  fetch() { [ -f "$FROM/$1" ] && cp "$FROM/$1" "$2"; }
  ;;
esac

if [ -z "$VERSION" ]; then
  fetch "$CHANNEL/LATEST" "$WORK/LATEST" || fail "no $CHANNEL channel at $FROM ($CHANNEL/LATEST is missing)"
  VERSION=$(head -n 1 "$WORK/LATEST" | tr -d '[:space:]')
fi
# Also keeps a hostile LATEST from naming a path outside the release location.
printf '%s' "$VERSION" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$' || fail "not a version: \"$VERSION\""

BUNDLE=gatehouse-$VERSION-linux-$ARCH.tar.gz
fetch "$CHANNEL/$VERSION/SHA256SUMS" "$WORK/SHA256SUMS" ||
  fail "no release $VERSION in the $CHANNEL channel at $FROM ($CHANNEL/$VERSION/SHA256SUMS is missing)"
expected=$(awk -v name="$BUNDLE" '$2 == name || $2 == "*" name { print $1 }' "$WORK/SHA256SUMS")
[ -n "$expected" ] ||
  fail "no bundle for linux-$ARCH in release $VERSION ($BUNDLE is not in SHA256SUMS); nothing was installed"
fetch "$CHANNEL/$VERSION/$BUNDLE" "$WORK/$BUNDLE" ||
  fail "$BUNDLE is listed in SHA256SUMS but missing at $FROM; nothing was installed"
actual=$(sha256sum "$WORK/$BUNDLE" | cut -d ' ' -f 1)
[ "$actual" = "$expected" ] ||
  fail "checksum mismatch for $BUNDLE (SHA256SUMS says $expected, the file is $actual); nothing was installed"
say "Verified $BUNDLE ($actual)"

# --- Install -------------------------------------------------------------------------------------------------------
OPT=$ROOT/opt/$NAME
ETC=$ROOT/etc/$NAME
DATA=$ROOT/var/lib/$NAME
LOGS=$ROOT/var/log/$NAME

if ! grep -q "^$NAME:" "$ROOT/etc/passwd" 2>/dev/null; then
  if [ -n "$ROOT" ]; then root_flag="--root $ROOT"; else root_flag=; fi
  # shellcheck disable=SC2086 # root_flag is two words or none
  useradd $root_flag --system --user-group --home-dir "/var/lib/$NAME" --no-create-home \
    --shell /usr/sbin/nologin --comment "Gatehouse identity provider" "$NAME"
  say "Created the system user $NAME"
fi
owner=$(awk -F: -v name="$NAME" '$1 == name { print $3 ":" $4 }' "$ROOT/etc/passwd")
[ -n "$owner" ] || fail "the user $NAME is not in $ROOT/etc/passwd"
group=${owner#*:}

# The release goes beside the others (kept for a rollback), then `current` switches to it in one rename.
mkdir -p "$OPT"
chmod 0755 "$OPT"
rm -rf "$OPT/.$VERSION.new"
mkdir "$OPT/.$VERSION.new"
tar -xzf "$WORK/$BUNDLE" -C "$OPT/.$VERSION.new" --strip-components=1 --no-same-owner
chown -R 0:0 "$OPT/.$VERSION.new"
rm -rf "${OPT:?}/$VERSION"
mv "$OPT/.$VERSION.new" "$OPT/$VERSION"
ln -sfn "$VERSION" "$OPT/.current.new"
mv -T "$OPT/.current.new" "$OPT/current"
mkdir -p "$ROOT/usr/local/bin"
ln -sfn "/opt/$NAME/current/bin/gatehouse" "$ROOT/usr/local/bin/gatehouse"
say "Installed $OPT/$VERSION (current -> $VERSION), /usr/local/bin/gatehouse"

# Config is root's and readable by the service; secrets, data and logs belong to the service user.
install -d -m 0750 -o 0 -g "$group" "$ETC"
install -d -m 0700 -o "${owner%:*}" -g "$group" "$ETC/secrets" "$DATA"
install -d -m 0750 -o "${owner%:*}" -g "$group" "$LOGS"
install -m 0644 -o 0 -g 0 "$OPT/$VERSION/gatehouse.example.toml" "$ETC/gatehouse.toml.example"
install -d -m 0755 "$ROOT/etc/systemd/system"
install -m 0644 -o 0 -g 0 "$OPT/$VERSION/gatehouse.service" "$ROOT/etc/systemd/system/$UNIT"

CONFIG=$ETC/gatehouse.toml
# Run again on an installation (an upgrade, a repair) without setup options: its configuration stays as it is.
if [ "$SETUP" = yes ] && [ -f "$CONFIG" ] && [ $# -eq 0 ]; then
  SETUP=no
  say "Kept the configuration /etc/$NAME/gatehouse.toml (setup runs only with options after --)"
fi
if [ "$SETUP" = yes ]; then
  say "Running gatehouse setup"
  "$OPT/current/bin/gatehouse" setup --config "$CONFIG" --secrets-dir "$ETC/secrets" --data-dir "$DATA" "$@" ||
    fail "gatehouse setup failed (see above). The files are installed: fix the cause, then run
  gatehouse setup --config /etc/$NAME/gatehouse.toml   and   sh install.sh --from $FROM --no-setup"
fi
# Whatever wrote them (setup runs as root), the service must read its config and own its secrets.
if [ -f "$CONFIG" ]; then
  chown "0:$group" "$CONFIG"
  chmod 0640 "$CONFIG"
fi
chown -R "$owner" "$ETC/secrets"

# CAP_NET_BIND_SERVICE only when the configured listener port is below 1024 (the unit grants none otherwise).
DROPIN=$ROOT/etc/systemd/system/$UNIT.d/privileged-port.conf
listen=
[ -f "$CONFIG" ] && listen=$(sed -n 's/^[[:space:]]*listen[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' "$CONFIG" | head -n 1)
port=${listen##*:}
case $port in '' | *[!0-9]*) port=8080 ;; esac
if [ "$port" -lt 1024 ]; then
  mkdir -p "${DROPIN%/*}"
  printf '%s\n' "# Written by install.sh: server.listen uses port $port, below 1024." "[Service]" \
    "CapabilityBoundingSet=CAP_NET_BIND_SERVICE" "AmbientCapabilities=CAP_NET_BIND_SERVICE" >"$DROPIN"
  say "Port $port is privileged: granted CAP_NET_BIND_SERVICE ($DROPIN)"
elif [ -f "$DROPIN" ]; then
  rm -f "$DROPIN"
  rmdir "${DROPIN%/*}" 2>/dev/null || true
fi

# jemalloc when Debian's libjemalloc2 is installed: less memory under load than glibc's malloc at the same CPU
# (packaging/jemalloc.conf says how much). Without it the service runs on glibc's malloc, and this says how to change that.
JEMALLOC=/usr/lib/$MULTIARCH/libjemalloc.so.2
ALLOCATOR=$ROOT/etc/systemd/system/$UNIT.d/jemalloc.conf
if [ ! -f "$OPT/$VERSION/jemalloc.conf" ]; then
  # A release from before the drop-in existed (--version, a rollback): it runs on either allocator, so what is there stays.
  say "This release has no jemalloc.conf: the allocator is left as it was"
elif [ -f "$ROOT$JEMALLOC" ]; then
  mkdir -p "${ALLOCATOR%/*}"
  sed "s|@LIBRARY@|$JEMALLOC|" "$OPT/$VERSION/jemalloc.conf" >"$ALLOCATOR.new"
  chmod 0644 "$ALLOCATOR.new"
  mv "$ALLOCATOR.new" "$ALLOCATOR"
  say "Allocating with jemalloc ($JEMALLOC): $ALLOCATOR"
else
  if [ -f "$ALLOCATOR" ]; then
    rm -f "$ALLOCATOR"
    rmdir "${ALLOCATOR%/*}" 2>/dev/null || true
  fi
  say "Allocating with glibc's malloc: apt-get install libjemalloc2, then run this installer again, for less memory under load"
fi

systemctl daemon-reload
systemctl enable "$UNIT" >/dev/null
if [ -f "$CONFIG" ]; then
  # systemd's start limit counts every start: a unit that failed or restarted often just now must still start here.
  systemctl reset-failed "$UNIT"
  systemctl restart "$UNIT"
  say "Started $UNIT: check it with   gatehouse status   or   journalctl -u $NAME"
else
  say "Not started: no configuration yet. Run   gatehouse setup --config /etc/$NAME/gatehouse.toml   then   systemctl start $NAME"
fi
