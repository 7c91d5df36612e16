# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for gguf-explorer (installed as /usr/share/bash-completion/completions/gguf-explorer):
# its options (`gguf-explorer --help`), the colour schemes, and *.gguf files and folders to open.
# Uses bash-completion's helpers when they are loaded (_init_completion, _filedir) and plain bash
# otherwise, so the file may also be sourced on its own.

# Adds files to COMPREPLY: with 'gguf', *.gguf files and folders; without, every file.
_gguf_explorer_files()
{
    if declare -F _filedir >/dev/null; then
        _filedir "$@"
        return
    fi
    compopt -o filenames 2>/dev/null
    if [[ ${1-} ]]; then
        mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -d -- "$cur")
        mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -X '!*.[gG][gG][uU][fF]' -- "$cur")
    else
        mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -- "$cur")
    fi
}

_gguf_explorer()
{
    # words, cword and split are set by _init_completion
    # shellcheck disable=SC2034
    local cur prev words cword split=false
    if declare -F _init_completion >/dev/null; then
        _init_completion -s || return
    else
        COMPREPLY=()
        cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
        # bash splits --option=value at '=' (COMP_WORDBREAKS)
        [[ $prev == = && $COMP_CWORD -ge 2 ]] && prev=${COMP_WORDS[COMP_CWORD - 2]}
        [[ $cur == = ]] && cur='' prev=${COMP_WORDS[COMP_CWORD - 1]}
    fi

    case $prev in
        --screenshot) _gguf_explorer_files ;; # a prefix for the PNGs: any path
        --color-scheme) mapfile -t COMPREPLY < <(compgen -W 'system light dark' -- "$cur") ;;
        *)
            if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W '-h --help --help-all -v --version --screenshot --compare
                    --color-scheme' -- "$cur")
            else
                _gguf_explorer_files gguf
            fi
            ;;
    esac
    return 0
}
complete -F _gguf_explorer gguf-explorer
