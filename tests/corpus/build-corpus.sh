#!/usr/bin/env bash
# Builds the facts parity corpus from real package releases.
#
# For every pair in cases.txt it downloads both releases with the
# registry's own client, unpacks them into two commits of a scratch git
# repository and writes, per diff variant (option set):
#   cases/<case>--<variant>.patch        what git diff (or format-patch) printed
#   cases/<case>--<variant>.numstat      git diff --numstat -z     (the oracle)
#   cases/<case>--<variant>.name-status  git diff --name-status -z (the oracle)
# Pairs marked `mega` are also laid side by side into one more repository,
# so one diff spans tens of thousands of files and ~100 MB of patch text.
#
# Usage: build-corpus.sh [CASE...]   (default: every case, then mega)
# Output goes to tests/corpus/generated/ (not committed). Downloads and
# repositories are reused when present, so a rerun only rewrites patches.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "$0")" && pwd)
gen=${CORPUS_DIR:-$here/generated}
mkdir -p "$gen/downloads" "$gen/repos" "$gen/cases"
# git apply run inside a repository only reads the patch for paths under
# the current directory: run it from an empty directory outside any.
outside=$(mktemp -d)
trap 'rm -rf "$outside"' EXIT

export GIT_AUTHOR_NAME="Corpus Author" GIT_AUTHOR_EMAIL="author@example.com"
export GIT_COMMITTER_NAME="Corpus Committer" GIT_COMMITTER_EMAIL="committer@example.com"
export GIT_AUTHOR_DATE="2024-01-02T03:04:05Z" GIT_COMMITTER_DATE="2024-01-02T03:04:05Z"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null TZ=UTC LC_ALL=C
export GIT_PAGER=cat PAGER=cat

log() { printf 'corpus: %s\n' "$*" >&2; }

# fetch REGISTRY PACKAGE VERSION: prints the path of the downloaded archive.
fetch() {
    local registry=$1 pkg=$2 ver=$3
    local dir="$gen/downloads/$registry/${pkg//\//_}-$ver"
    if [ ! -f "$dir/.done" ]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        log "downloading $registry $pkg $ver"
        case $registry in
        npm) (cd "$dir" && npm pack --silent "$pkg@$ver" >/dev/null) ;;
        pypi) pip download --quiet --disable-pip-version-check --no-deps \
            --no-binary :all: -d "$dir" "$pkg==$ver" ;;
        crates) fetch_crate "$dir" "$pkg" "$ver" ;;
        *) log "unknown registry $registry" && return 1 ;;
        esac
        touch "$dir/.done"
    fi
    find "$dir" -maxdepth 1 -type f \( -name '*.tgz' -o -name '*.tar.gz' -o -name '*.crate' \) |
        head -n 1
}

# A crate's source: cargo itself downloads it for a throwaway manifest
# that pins the exact version; the .crate lands in a scratch CARGO_HOME.
fetch_crate() {
    local dir=$1 pkg=$2 ver=$3
    local proj="$dir/proj"
    mkdir -p "$proj/src"
    : >"$proj/src/lib.rs"
    # The empty [workspace] keeps cargo from adopting it into an enclosing one.
    printf '[package]\nname = "corpus-fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[workspace]\n\n[dependencies]\n%s = "=%s"\n' \
        "$pkg" "$ver" >"$proj/Cargo.toml"
    CARGO_HOME="$gen/cargo-home" cargo fetch --quiet --manifest-path "$proj/Cargo.toml"
    cp "$(find "$gen/cargo-home/registry/cache" -name "$pkg-$ver.crate" | head -n 1)" "$dir/"
    rm -rf "$proj"
}

# unpack ARCHIVE DEST: the archive's single top directory becomes DEST.
unpack() {
    mkdir -p "$2"
    tar -xzf "$1" --no-same-owner --strip-components=1 -C "$2"
}

# commit_tree REPO TAG: commits the work tree as it is (ignored files too:
# the corpus wants every file the release shipped).
commit_tree() {
    git -C "$1" add -A -f .
    git -C "$1" commit -q --allow-empty --no-verify -m "$2"
    git -C "$1" tag -f "$2" >/dev/null
}

new_repo() {
    rm -rf "$1"
    mkdir -p "$1"
    git -C "$1" init -q -b main
}

# build_pair CASE REGISTRY PACKAGE OLD NEW: the two-commit repository.
build_pair() {
    local repo="$gen/repos/$1"
    git -C "$repo" rev-parse -q --verify refs/tags/new >/dev/null 2>&1 && return 0
    local old new
    old=$(fetch "$2" "$3" "$4")
    new=$(fetch "$2" "$3" "$5")
    new_repo "$repo"
    unpack "$old" "$repo/pkg"
    commit_tree "$repo" old
    rm -rf "${repo:?}/pkg"
    unpack "$new" "$repo/pkg"
    commit_tree "$repo" new
}

# build_mega CASE...: every listed pair side by side, under pkg/<case>/.
build_mega() {
    local repo="$gen/repos/mega" side case registry pkg old new
    git -C "$repo" rev-parse -q --verify refs/tags/new >/dev/null 2>&1 && return 0
    new_repo "$repo"
    for side in old new; do
        rm -rf "${repo:?}/pkg"
        for case in "$@"; do
            read -r registry pkg old new < <(awk -v c="$case" '$1 == c { print $2, $3, $4, $5 }' "$here/cases.txt")
            [ "$side" = new ] && old=$new
            unpack "$(fetch "$registry" "$pkg" "$old")" "$repo/pkg/$case"
        done
        commit_tree "$repo" "$side"
    done
}

variants_of() {
    case $1 in
    all) echo default no-renames copies binary u0 func no-prefix custom-prefix break raw-names text mail ;;
    large) echo default binary u0 no-prefix break mail ;;
    huge) echo default binary ;;
    *) log "unknown variant set $1" && return 1 ;;
    esac
}

# write_variant CASE VARIANT: one patch and its oracle. `both` options
# change what git finds (the file list, or the lines: xdiff's hunks, and so
# numstat's counts, depend on the context size), so the oracle gets them
# too; `patch` options only change how the patch text looks.
write_variant() {
    local repo="$gen/repos/$1" out="$gen/cases/$1--$2"
    local -a both=() patch=() cfg=()
    case $2 in
    default) ;;
    no-renames) both=(--no-renames) ;;
    copies) both=(-M -C -C) ;;
    binary) patch=(--binary) ;;
    u0) cfg=(-c diff.context=0) ;; # -U0 would add patch text to numstat
    func) both=(-W) ;;
    no-prefix) patch=(--no-prefix --binary) ;;
    custom-prefix) patch=(--src-prefix=old/ --dst-prefix=new/version/) ;;
    break) both=(-B -M) ;;
    raw-names) cfg=(-c core.quotepath=false) ;;
    text) both=(-a) ;;
    mail) ;;
    *) log "unknown variant $2" && return 1 ;;
    esac
    if [ "$2" = mail ]; then
        # format-patch detects renames like git diff's defaults here.
        git -C "$repo" format-patch -q --stdout old..new >"$out.patch"
    else
        git "${cfg[@]}" -C "$repo" diff "${both[@]}" "${patch[@]}" old new >"$out.patch"
    fi
    git "${cfg[@]}" -C "$repo" diff --numstat -z "${both[@]}" old new >"$out.numstat"
    git "${cfg[@]}" -C "$repo" diff --name-status -z "${both[@]}" old new >"$out.name-status"
    if [ "$2" = text ]; then
        # git diff --numstat calls a binary file binary even under --text,
        # while the patch carries it as text lines: the counts of that
        # patch come from git apply --numstat instead.
        (cd "$outside" && git apply --numstat -z "$out.patch") >"$out.apply-numstat"
    fi
}

main() {
    local -a wanted=("$@") mega=()
    local name registry pkg old new set flag v
    while read -r name registry pkg old new set flag; do
        case $name in '' | '#'*) continue ;; esac
        [ "${flag:-}" = mega ] && mega+=("$name")
        if [ ${#wanted[@]} -gt 0 ] && ! printf '%s\n' "${wanted[@]}" | grep -qx -- "$name"; then
            continue
        fi
        build_pair "$name" "$registry" "$pkg" "$old" "$new"
        for v in $(variants_of "$set"); do
            write_variant "$name" "$v"
        done
        log "$name: $(git -C "$gen/repos/$name" diff --name-only old new | wc -l) files"
    done <"$here/cases.txt"
    if [ ${#wanted[@]} -eq 0 ] || printf '%s\n' "${wanted[@]}" | grep -qx mega; then
        build_mega "${mega[@]}"
        for v in default binary; do
            write_variant mega "$v"
        done
        log "mega: $(git -C "$gen/repos/mega" diff --name-only old new | wc -l) files"
    fi
}

main "$@"
