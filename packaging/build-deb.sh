#!/usr/bin/env bash
# Builds mustdo-relay_<version>_amd64.deb (`make package`; packaging/README.md explains the layout).
#
#   packaging/build-deb.sh [--source DIR] [--scratch DIR] [--out DIR] [--no-lintian]
#
# The version is RelayCommand.version in Sources/RelayService/RelayCommand.swift, the one place it is
# written: `--version` and MCP's serverInfo print it, and this script reads it from there. Both
# executables are built with the Swift runtime (and Foundation) linked statically, so the server
# needs only Debian's own libraries, which dpkg-shlibdeps turns into the package's Depends.
# --source builds another copy of the sources (the package test builds an older version that way);
# --print-version prints the version this script reads and stops.
# --scratch is SwiftPM's build directory for it (default .build/package, kept for incremental builds).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source_dir=$root
scratch=$root/.build/package
out=$root/.build
lintian=1
print_version=0
while [ $# -gt 0 ]; do
    case $1 in
    --print-version) print_version=1; shift ;;
    --source) source_dir=$(cd "$2" && pwd); shift 2 ;;
    --scratch) scratch=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-lintian) lintian=0; shift ;;
    *) echo "build-deb: unknown option $1" >&2; exit 2 ;;
    esac
done
export PATH=/opt/swift/usr/bin:$PATH
package=mustdo-relay
architecture=$(dpkg --print-architecture)
version=$(sed -n 's/^ *package static let version = "\(.*\)"$/\1/p' "$source_dir/Sources/RelayService/RelayCommand.swift")
# Debian's version syntax (upstream part only: a native package has no revision).
if ! [[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
    echo "build-deb: RelayCommand.version \"$version\" is not a Debian version (digits first; then letters, digits, . + ~)" >&2
    exit 1
fi
# `make test` (scripts/check-deploy.sh) and the package test read the version this way.
[ "$print_version" = 0 ] || { echo "$version"; exit 0; }
deb=$out/${package}_${version}_${architecture}.deb
# Reproducible: every timestamp is the last commit's (or, outside git, the version file's).
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$source_dir" log -1 --format=%ct 2>/dev/null ||
    stat -c %Y "$source_dir/Sources/RelayService/RelayCommand.swift")}
export SOURCE_DATE_EPOCH

echo "build-deb: $package $version ($architecture): swift build -c release --static-swift-stdlib"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for product in mustdo-relay mustdo-relayctl; do
    swift build -c release --static-swift-stdlib -Xswiftc -warnings-as-errors --package-path "$source_dir" \
        --scratch-path "$scratch" --product "$product" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
done
bin=$(swift build -c release --static-swift-stdlib --package-path "$source_dir" --scratch-path "$scratch" --show-bin-path)

# What the package promises, checked on the binaries themselves: the version, and no Swift library
# left to find at run time (only Debian's: libc, libstdc++, libssl, libcurl, libnghttp2, libsqlite3…).
for program in mustdo-relay mustdo-relayctl; do
    printed=$("$bin/$program" --version)
    [ "$printed" = "$program $version" ] || { echo "build-deb: $program --version printed \"$printed\"" >&2; exit 1; }
    needed=$(objdump -p "$bin/$program" | awk '$1 == "NEEDED" { print $2 }')
    if grep -Ei 'swift|foundation|dispatch|BlocksRuntime|icu' <<<"$needed"; then
        echo "build-deb: $program still needs the libraries above from the Swift toolchain" >&2
        exit 1
    fi
done

stage=$scratch/deb
rm -rf "$stage"
tree=$stage/root
install -d "$tree/DEBIAN" "$tree/usr/bin" "$tree/lib/systemd/system" "$tree/etc/$package" \
    "$tree/usr/share/doc/$package/examples/nginx" "$tree/usr/share/doc/$package/examples/caddy" \
    "$tree/usr/share/man/man1"
for program in mustdo-relay mustdo-relayctl; do
    # As dh_strip does: the symbols and notes go, Swift's metadata sections (allocated) stay.
    install -m 0755 "$bin/$program" "$tree/usr/bin/$program"
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$tree/usr/bin/$program"
done
install -m 0644 "$source_dir/deploy/systemd/mustdo-relay.service" "$tree/lib/systemd/system/"
# The settings file is the example with the issuer left for the operator: a placeholder issuer
# would let the relay start under a name that is not its own. `config check` then names it.
sed 's|^RELAY_ISSUER=https://relay.example.com$|RELAY_ISSUER=|' "$source_dir/config/relay.env.example" \
    >"$tree/etc/$package/relay.env"
grep -qx 'RELAY_ISSUER=' "$tree/etc/$package/relay.env" || {
    echo "build-deb: config/relay.env.example no longer has RELAY_ISSUER=https://relay.example.com" >&2
    exit 1
}
# 0644 and 0755 here; the postinst gives them to root:mustdo-relay, 0640 and 0750, once the user exists.
chmod 0644 "$tree/etc/$package/relay.env"
docs=$tree/usr/share/doc/$package
install -m 0644 "$source_dir/README.md" "$source_dir/SECURITY.md" "$source_dir/docs/"*.md \
    "$source_dir/packaging/debian/README.Debian" "$docs/"
install -m 0644 "$source_dir/packaging/debian/copyright" "$docs/copyright"
install -m 0644 "$source_dir/deploy/nginx/mustdo-relay.conf" "$docs/examples/nginx/"
install -m 0644 "$source_dir/deploy/caddy/Caddyfile" "$docs/examples/caddy/"
install -m 0644 "$source_dir/config/relay.env.example" "$docs/examples/"
date=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
maintainer=$(sed -n 's/^Maintainer: //p' "$source_dir/packaging/debian/control.in")
printf '%s (%s) unstable; urgency=medium\n\n  * Release %s (the changes are in the project'"'"'s git history).\n\n -- %s  %s\n' \
    "$package" "$version" "$version" "$maintainer" "$date" | gzip -9n >"$docs/changelog.gz"
# Manual pages made from each program's --help, so they cannot fall behind it.
manual() { # program summary see-also
    local page=$tree/usr/share/man/man1/$1.1.gz
    {
        printf '.TH %s 1 "%s" "%s %s" "User Commands"\n' "${1^^}" "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)" "$1" "$version"
        printf '.SH NAME\n%s \\- %s\n.SH DESCRIPTION\n.nf\n' "$1" "$2"
        "$bin/$1" --help | sed -e 's/\\/\\e/g' -e "s/^[.']/\\\\\&&/"
        printf '.fi\n.SH SEE ALSO\n%s, /usr/share/doc/mustdo-relay/operations.md,\n' "$3"
        printf '/usr/share/doc/mustdo-relay/README.Debian\n'
    } | gzip -9n >"$page"
    chmod 0644 "$page"
}
manual mustdo-relay "MCP server and OAuth 2.1 authorization server for MustDo to-dos" "\\fBmustdo-relayctl\\fR(1)"
manual mustdo-relayctl "the operator's tool for MustDo Relay" "\\fBmustdo-relay\\fR(1)"

for script in postinst prerm postrm; do
    install -m 0755 "$source_dir/packaging/debian/$script" "$tree/DEBIAN/$script"
done
install -m 0644 "$source_dir/packaging/debian/conffiles" "$tree/DEBIAN/conffiles"

# Depends: what the binaries link (dpkg-shlibdeps reads the shlibs and symbols files of the
# libraries found), plus the tools the maintainer scripts call.
shlibdeps=$stage/shlibdeps
mkdir -p "$shlibdeps/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$package" "$package" >"$shlibdeps/debian/control"
(cd "$shlibdeps" && dpkg-shlibdeps -O "$tree/usr/bin/mustdo-relay" "$tree/usr/bin/mustdo-relayctl") \
    >"$stage/substvars"
libraries=$(sed -n 's/^shlibs:Depends=//p' "$stage/substvars")
[ -n "$libraries" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# dpkg-shlibdeps sees only the functions the programs call, so it asks for libcurl4 (>= 7.16.3);
# the options they pass need more. CURLOPT_PROTOCOLS_STR, the newest, came with curl 7.85.0
# (https://curl.se/libcurl/c/CURLOPT_PROTOCOLS_STR.html).
curl_floor=7.85.0
libraries=$(printf '%s' "$libraries" | sed -E "s/(^|, )libcurl4( \([^)]*\))?(,|$)/\1libcurl4 (>= $curl_floor)\3/")
case "$libraries" in
*"libcurl4 (>= $curl_floor)"*) ;;
*) echo "build-deb: no libcurl4 in the dependencies ($libraries)" >&2; exit 1 ;;
esac
installed_size=$(du -k -s --apparent-size --exclude=DEBIAN "$tree" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCHITECTURE@/$architecture/" -e "s/@DEPENDS@/$libraries/" \
    -e "s/@INSTALLED_SIZE@/$installed_size/" "$source_dir/packaging/debian/control.in" >"$tree/DEBIAN/control"
(cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | grep -v '^etc/' | LC_ALL=C sort |
    xargs md5sum) >"$tree/DEBIAN/md5sums"
chmod 0644 "$tree/DEBIAN/control" "$tree/DEBIAN/md5sums"

find "$tree" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
mkdir -p "$out"
dpkg-deb --root-owner-group -Zxz --build "$tree" "$deb" >/dev/null
echo "build-deb: $deb ($(du -h "$deb" | cut -f1))"
echo "build-deb: Depends: $(sed -n 's/^Depends: //p' "$tree/DEBIAN/control")"

if [ "$lintian" = 1 ]; then
    # Errors fail the build; warnings are shown. As root, lintian runs as nobody (it asks not to
    # run as root) on a copy that nobody can read.
    check=$(mktemp -d)
    trap 'rm -f "$log"; rm -rf "$check"' EXIT
    chmod 0755 "$check"
    cp "$deb" "$check/"
    as_user=()
    [ "$(id -u)" = 0 ] && id -u nobody >/dev/null 2>&1 && as_user=(runuser -u nobody --)
    "${as_user[@]}" lintian --fail-on error "$check/$(basename "$deb")" ||
        { echo "build-deb: lintian reports errors" >&2; exit 1; }
    echo "build-deb: lintian: no errors"
fi
