#!/usr/bin/env bash
# Installs what peakbench needs from Debian's (or Ubuntu's) packages: a C
# compiler, cmake, the CPU libraries it measures (OpenBLAS, BLIS, MKL,
# oneDNN, the reference BLAS, ATLAS), and the frameworks its worker backends run
# (PyTorch, NumPy, SciPy for the distribution's python3). Idempotent: it installs only what is missing
# and touches the package sources only to enable the component MKL lives in.
#
#   scripts/install-deps.sh           install what is missing
#   scripts/install-deps.sh --check   only say what is missing (exit 1 if anything is)
#
# Works as root or through sudo; otherwise it prints the commands to run.
set -euo pipefail

check_only=false
[ "${1:-}" = "--check" ] && check_only=true

# Debian package names. libomp-dev gives MKL the OpenMP runtime its default
# (Intel) threading layer needs; without one, MKL aborts at load.
packages=(
  gcc make cmake pkg-config git
  libopenblas-dev libblis-dev libblas-dev
  libatlas-base-dev
  libmkl-dev libomp-dev
  libdnnl-dev
  libfftw3-single3 libfftw3-double3
  python3 python3-numpy python3-scipy python3-torch
)

say() { printf 'install-deps: %s\n' "$*" >&2; }

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo)
else
  sudo=(cannot)
fi

run() {
  if [ "${sudo[0]:-}" = cannot ]; then
    say "not root and no password-less sudo; run as root:"
    printf '  %s\n' "$*" >&2
    return 1
  fi
  "${sudo[@]}" "$@"
}

missing() {
  local p out=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || out+=("$p")
  done
  echo "${out[@]}"
}

if ! command -v apt-get >/dev/null 2>&1; then
  say "no apt-get: install by hand the equivalents of: ${packages[*]}"
  exit 1
fi

todo=$(missing)
if [ -z "$todo" ]; then
  say "all packages present"
else
  if $check_only; then
    say "missing: $todo"
    exit 1
  fi
  # MKL is in Debian's non-free component (Ubuntu's multiverse). Enable it by
  # copying the machine's own main entry with the extra components, so no
  # mirror is named here. The copy lists only the extra components: repeating
  # main would make apt warn about every index being configured twice.
  extra_src=/etc/apt/sources.list.d/peakbench-nonfree.sources
  . /etc/os-release
  case "${ID:-debian}" in
    ubuntu) components="universe multiverse" ;;
    *) components="contrib non-free" ;;
  esac
  if [[ " $todo " == *" libmkl-dev "* ]] && [ ! -e "$extra_src" ]; then
    src=""
    for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list.d/ubuntu.sources; do
      [ -r "$f" ] && src=$f && break
    done
    if [ -n "$src" ]; then
      # The first stanza (up to a blank line) is the main archive.
      entry=$(awk 'BEGIN{RS=""} NR==1{print; exit}' "$src" |
        sed -E "s/^Components:.*/Components: $components/")
      say "enabling '$components' in $extra_src (copied from $src)"
      printf '%s\n' "$entry" | run tee "$extra_src" >/dev/null
    elif [ -r /etc/apt/sources.list ]; then
      line=$(grep -E '^deb [^#]*main' /etc/apt/sources.list | grep -v security | head -n 1)
      extra_src=/etc/apt/sources.list.d/peakbench-nonfree.list
      say "enabling '$components' in $extra_src (copied from /etc/apt/sources.list)"
      printf '%s %s\n' "$line" "$components" | run tee "$extra_src" >/dev/null
    fi
  fi
  say "installing: $todo"
  run apt-get update -qq
  # shellcheck disable=SC2086
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $todo >/dev/null
  todo=$(missing)
  if [ -n "$todo" ]; then
    say "could not install: $todo"
    exit 1
  fi
  say "installed"
fi

# Go 1.26 or newer (go.mod asks for it). An older go (≥ 1.21) fetches the
# right toolchain itself from the module proxy; older ones cannot.
gobin=$(command -v go || true)
[ -z "$gobin" ] && [ -x /usr/local/go/bin/go ] && gobin=/usr/local/go/bin/go
if [ -z "$gobin" ]; then
  $check_only && { say "missing: go"; exit 1; }
  say "no Go toolchain: installing Debian's golang-go (it fetches the toolchain go.mod asks for)"
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >/dev/null
fi
exit 0
