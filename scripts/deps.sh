#!/usr/bin/env bash
# Installs the Debian packages iolab needs, only when one is missing; silent when all are there.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libcli11-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev
  liburing-dev zlib1g-dev libzstd-dev liblz4-dev libxxhash-dev libboost-math-dev
  libgtest-dev fio
  clang-14 libclang-rt-14-dev clang-format-14
  xfsprogs
  libjs-chart.js chromium fonts-dejavu-core python3
  libopenmpi-dev openmpi-bin
  openjdk-17-jdk-headless
  postgresql-15
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# postgresql-15 is here for its pg_test_fsync (a peer of the durable family): no database cluster
# is to be made when it is installed.
if [[ " ${missing[*]} " == *" postgresql-15 "* && ! -e /etc/postgresql-common/createcluster.d/iolab.conf ]]; then
  $sudo mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.d/iolab.conf >/dev/null
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
