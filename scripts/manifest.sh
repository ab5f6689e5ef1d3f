#!/usr/bin/env bash
# scripts/manifest.sh — write build/<variant>/manifest.json for one native library build.
#
# usage: scripts/manifest.sh --source-hash      (prints the native source hash, see below)
#        scripts/manifest.sh --stamp MANIFEST  (prints the build's identity for the Go link:
#          variant=…;library_sha256=…;profile_sha256=…;source_sha256=…;git_commit=…)
#        scripts/manifest.sh --variant NAME --out FILE --lib FILE --compiler CMD \
#          --cxxflags "FLAGS" --link "CMD + FLAGS" [--profile FILE] [--warning TEXT]...
#
# Fields:
#   variant, library, library_sha256
#   compiler            first line of `CMD --version`;  compiler_command: CMD
#   cxxflags, link      the full flags used to compile each source and to link/archive
#   pgo                 true when compiled with -fprofile-instr-use
#   profile_path, profile_sha256            or null when built without a profile
#   profile_trained_source_sha256, profile_stale   from pgo/training.json (written by `make pgo`);
#                       stale = the native sources changed since the profile was trained (the
#                       build still works: functions whose code changed just get no profile data)
#   source_sha256       scripts/source-hash.sh native/src native/include: sha256 of the listing
#                       "sha256  path" of every file there, sorted by path (LC_ALL=C), so names
#                       count as well as bytes
#   source_files        how many files that covers
#   git_commit, git_dirty   `git rev-parse HEAD` or "unknown"; dirty = uncommitted changes
#   build_time          UTC, RFC 3339 (SOURCE_DATE_EPOCH is honoured for reproducible builds)
#   warnings            anything a reader of a report must know (e.g. "built without PGO")
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

variant="" out="" lib="" compiler="" cxxflags="" link="" profile=""
warnings=()
source_hash_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --source-hash) source_hash_only=1; shift ;;
    --stamp)
      # The binding records this in the binary (-X binding.nativeBuild), so a binary says what it
      # links whatever build/ holds later; a changed library also changes the link, so Go relinks.
      for k in variant library_sha256 profile_sha256 source_sha256 git_commit; do
        v="$(sed -n "s/^  \"$k\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" "$2")"
        printf '%s%s=%s' "${sep:-}" "$k" "${v/null/}"; sep=';'
      done
      echo; exit 0 ;;
    --variant) variant="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --lib) lib="$2"; shift 2 ;;
    --compiler) compiler="$2"; shift 2 ;;
    --cxxflags) cxxflags="$2"; shift 2 ;;
    --link) link="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    --warning) warnings+=("$2"); shift 2 ;;
    *) echo "manifest.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

# JSON string (or the bare word null for an empty value when $2 = nullable).
js() {
  local s="$1"
  if [ -z "$s" ] && [ "${2:-}" = nullable ]; then printf 'null'; return; fi
  s="${s//\\/\\\\}"; s="${s//\"/\\\"}"; s="${s//$'\t'/\\t}"; s="${s//$'\n'/\\n}"; s="${s//$'\r'/\\r}"
  printf '"%s"' "$s"
}
sha() { sha256sum "$1" | cut -d' ' -f1; }

# The source hash is also what `make pgo` records in pgo/training.json.
source_sha256() { scripts/source-hash.sh native/src native/include; }

if [ "$source_hash_only" = 1 ]; then source_sha256; echo; exit 0; fi
[ -n "$variant" ] && [ -n "$out" ] && [ -n "$compiler" ] || {
  echo "manifest.sh: --variant, --out and --compiler are required" >&2; exit 2; }

src_hash="$(source_sha256)"
src_files="$(find native/src native/include -type f 2>/dev/null | wc -l | tr -d ' ')"
compiler_version="$("$compiler" --version 2>/dev/null | head -n1 || echo unknown)"

lib_hash=""
[ -n "$lib" ] && [ -f "$lib" ] && lib_hash="$(sha "$lib")"

pgo=false profile_hash="" trained_src="" stale=null
if [ -n "$profile" ]; then
  [ -f "$profile" ] || { echo "manifest.sh: profile $profile not found" >&2; exit 2; }
  pgo=true
  profile_hash="$(sha "$profile")"
  training="$(dirname "$profile")/training.json"
  if [ -f "$training" ]; then
    trained_src="$(sed -n 's/.*"source_sha256"[[:space:]]*:[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$training" | head -n1)"
  fi
  if [ -n "$trained_src" ]; then
    if [ "$trained_src" = "$src_hash" ]; then stale=false; else
      stale=true
      warnings+=("profile trained on other native sources: functions changed since then get no profile data; 'make pgo' retrains")
    fi
  fi
fi

commit="unknown" dirty=null
if git -C "$ROOT" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  commit="$(git -C "$ROOT" rev-parse HEAD)"
  if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=normal 2>/dev/null)" ]; then dirty=true; else dirty=false; fi
elif git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
  dirty=true # a repository without commits: everything is uncommitted
fi

if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
  when="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
else
  when="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
fi

warn_json=""
for w in "${warnings[@]+"${warnings[@]}"}"; do
  warn_json+="${warn_json:+, }$(js "$w")"
done

mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
{
  printf '{\n'
  printf '  "variant": %s,\n' "$(js "$variant")"
  printf '  "library": %s,\n' "$(js "$lib" nullable)"
  printf '  "library_sha256": %s,\n' "$(js "$lib_hash" nullable)"
  printf '  "compiler": %s,\n' "$(js "$compiler_version")"
  printf '  "compiler_command": %s,\n' "$(js "$compiler")"
  printf '  "cxxflags": %s,\n' "$(js "$cxxflags")"
  printf '  "link": %s,\n' "$(js "$link")"
  printf '  "pgo": %s,\n' "$pgo"
  printf '  "profile_path": %s,\n' "$(js "$profile" nullable)"
  printf '  "profile_sha256": %s,\n' "$(js "$profile_hash" nullable)"
  printf '  "profile_trained_source_sha256": %s,\n' "$(js "$trained_src" nullable)"
  printf '  "profile_stale": %s,\n' "$stale"
  printf '  "source_sha256": %s,\n' "$(js "$src_hash" nullable)"
  printf '  "source_files": %s,\n' "$src_files"
  printf '  "git_commit": %s,\n' "$(js "$commit")"
  printf '  "git_dirty": %s,\n' "$dirty"
  printf '  "build_time": %s,\n' "$(js "$when")"
  printf '  "warnings": [%s]\n' "$warn_json"
  printf '}\n'
} >"$tmp"
mv -f "$tmp" "$out"
