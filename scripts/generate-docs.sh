#!/bin/sh
# Regenerates the man pages (docs/man/) and the shell completions (packaging/completions/)
# from the command definitions in Sources/garage-pins and Sources/garaged, with
# ArgumentParser's own generators, and the configuration reference (docs/configuration.md)
# from the settings' catalog (Sources/garaged/Config/Catalog.swift, `garaged settings-reference`). Works offline once the package is resolved. The date in the
# man pages is the date of the last commit that touched either tool, so a rerun on the same
# sources gives the same bytes.
set -eu
cd "$(dirname "$0")/.."
date=$(git log -1 --format=%cs -- Sources/garage-pins Sources/garaged 2>/dev/null || date +%F)
mkdir -p docs/man packaging/completions
swift package --allow-writing-to-directory "$PWD/docs/man" \
    generate-manual --output-directory "$PWD/docs/man" --date "$date" --section 1 >/dev/null
swift build --product garage-pins >/dev/null
swift build --product garaged >/dev/null
"$(swift build --show-bin-path)/garaged" settings-reference > docs/configuration.md
bin=$(swift build --show-bin-path)/garage-pins
"$bin" --generate-completion-script bash > packaging/completions/garage-pins.bash
"$bin" --generate-completion-script zsh > packaging/completions/_garage-pins
"$bin" --generate-completion-script fish > packaging/completions/garage-pins.fish
echo "wrote docs/man/garage-pins.1 docs/man/garaged.1 docs/configuration.md packaging/completions/{garage-pins.bash,_garage-pins,garage-pins.fish} (date $date)"
