# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for gguf-inspect (installed as /usr/share/bash-completion/completions/gguf-inspect).
#
# Commands, each command's own options (app/gguf_inspect/main.cpp says which belong where), *.gguf files
# and folders for FILE, the cache types of --cache-type-k/-v, and the tensor names of the file on the
# line (dequant, stats, diff --tensor), read with `gguf-inspect tensors FILE --names`. That is run only
# on a readable regular local file, never on a URL or hf: name (completion must not reach the network),
# with a time limit, and silently. The program run is the command word when it is a path to an
# executable (./build/gguf-inspect), else `gguf-inspect` from PATH.
# Uses bash-completion's helpers when they are loaded (_init_completion, _filedir) and plain bash
# otherwise, so the file may also be sourced on its own.

# The options of a command ('': before any command, or after a bare FILE).
_gguf_inspect_options()
{
    case $1 in
        '') echo -h --help --help-all -v --version --json ;;
        info | vocab | validate | layout) echo --json ;;
        dump) echo --json --json-array ;;
        tensors) echo --json --names ;;
        dequant) echo -o --output ;;
        stats) echo --bins --range --fast --sample --json ;;
        tokenize) echo --file --add-special --parse-special --json ;;
        diff) echo --values --tensor --json ;;
        set) echo --type --remove --chat-template-file --force -o --output --in-place --reserve --json ;;
        memory)
            echo --ctx --parallel --ubatch --cache-type-k --cache-type-v --flash-attn --gpu-layers --no-mmap \
                --budget --device --tensor-split --split-mode --main-gpu --override-tensor --n-cpu-moe --cpu-moe --json
            ;;
        hash) echo --xxh64 --sha1 --sha256 --uuid --all --no-layer --check ;;
        split) echo -o --output --split-max-tensors --split-max-size --dry-run ;;
        merge) echo -o --output --dry-run ;;
        report) echo -o --output ;;
        fit)
            echo --device --ctx --max-ctx --margin --parallel --ubatch --cache-type-k --cache-type-v --flash-attn \
                --no-mmap --tensor-split --split-mode --main-gpu --override-tensor --cpu-moe --json
            ;;
    esac
}

# Without bash-completion: cur, prev, words and cword as `_init_completion -s -n :` gives them, the
# pieces bash split at COMP_WORDBREAKS (':' of a URL, '=' of --option=value) joined again.
_gguf_inspect_words()
{
    local line=${COMP_LINE:0:COMP_POINT} piece i
    words=() cword=-1
    for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
        piece=${COMP_WORDS[i]}
        # a new word after blanks; a piece right after the previous one continues it
        if ((cword < 0)) || [[ $line == [[:space:]]* ]]; then
            line=${line#"${line%%[![:space:]]*}"}
            words+=("")
            cword=$((cword + 1))
        fi
        words[cword]+=$piece
        line=${line#"$piece"}
    done
    cur=${words[cword]} prev=${words[cword - 1]-}
    if [[ $cur == --?*=* ]]; then
        prev=${cur%%=*} cur=${cur#*=} split=true
    fi
}

# The word as the program will receive it, in REPLY: quotes and backslashes removed, nothing expanded
# (no eval: a word on the line is never run). A quote left open: its character in REPLY_QUOTE, and in
# REPLY_BEFORE the length of REPLY before it (readline completes only the text after an open quote).
_gguf_inspect_dequote()
{
    local in=$1 c quote=''
    REPLY='' REPLY_BEFORE=0
    while [[ $in ]]; do
        c=${in:0:1} in=${in:1}
        if [[ $quote == "'" ]]; then
            [[ $c == "'" ]] && quote='' || REPLY+=$c
        elif [[ $c == \\ ]]; then
            # inside "…" a backslash escapes only $ ` " \
            if [[ -z $quote || ${in:0:1} == [\$\`\"\\] ]]; then
                REPLY+=${in:0:1} in=${in:1}
            else
                REPLY+=$c
            fi
        elif [[ $c == '"' && $quote ]]; then
            quote=''
        elif [[ -z $quote && $c == [\"\'] ]]; then
            quote=$c REPLY_BEFORE=${#REPLY}
        else
            REPLY+=$c
        fi
    done
    REPLY_QUOTE=$quote
}

# Adds files to COMPREPLY: with 'gguf', *.gguf files and folders; without, every file.
_gguf_inspect_files()
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

# Adds to COMPREPLY the tensor names of the FILEs (as typed) that start with the word being completed,
# quoted as the word needs: escaped with backslashes (printf %q), or, inside a quote the word opened,
# left to readline, which quotes them for that quote and closes it (-o filenames).
_gguf_inspect_tensor_names()
{
    local program=gguf-inspect file name prefix quote before limit=() REPLY REPLY_QUOTE REPLY_BEFORE
    local -A seen=()
    _gguf_inspect_dequote "${words[0]}"
    [[ $REPLY == */* ]] && REPLY=${REPLY/#\~\//$HOME/} && [[ -f $REPLY && -x $REPLY ]] && program=$REPLY
    type -P timeout >/dev/null && limit=(timeout 10)
    _gguf_inspect_dequote "$cur"
    prefix=$REPLY quote=$REPLY_QUOTE before=$REPLY_BEFORE
    for file; do
        _gguf_inspect_dequote "$file"
        file=${REPLY/#\~\//$HOME/}
        # never the network, and nothing that could block (a FIFO, a device)
        [[ $file == *://* || $file == hf:* || ! -f $file || ! -r $file ]] && continue
        while IFS= read -r name; do
            [[ $name && $name == "$prefix"* && -z ${seen[$name]-} ]] || continue
            seen[$name]=1
            if [[ $quote ]]; then
                COMPREPLY+=("${name:before}")
            else
                printf -v name %q "$name"
                COMPREPLY+=("$name")
            fi
        done < <("${limit[@]}" "$program" tensors "$file" --names </dev/null 2>/dev/null)
    done
    [[ $quote ]] && ((${#COMPREPLY[@]})) && compopt -o filenames 2>/dev/null
    return 0
}

_gguf_inspect()
{
    local cur prev words cword split=false
    if declare -F _init_completion >/dev/null; then
        _init_completion -s -n : || return
    else
        COMPREPLY=()
        _gguf_inspect_words
    fi

    # the arguments before the word being completed; skip: value words of the last option still to come
    local commands='info dump tensors vocab validate layout dequant stats tokenize detokenize diff set memory fit hash split merge report'
    local i w skip=0 option='' options_end=false tensor_option=false args=()
    for ((i = 1; i < cword; i++)); do
        w=${words[i]}
        if ((skip > 0)); then
            skip=$((skip - 1))
        elif [[ $options_end == false && $w == -?* ]]; then
            option=$w
            case $w in
                --) options_end=true ;;
                --range) skip=2 ;;
                -o | --output | --file | --type | --remove | --chat-template-file | --reserve | --bins | --sample | \
                    --ctx | --parallel | --ubatch | --cache-type-k | --cache-type-v | --gpu-layers | --budget | --device | \
                    --tensor-split | --split-mode | --main-gpu | --override-tensor | --n-cpu-moe | --margin | --check | --split-max-tensors | --split-max-size)
                    skip=1
                    ;;
                --tensor) skip=1 tensor_option=true ;;
                --tensor=*) tensor_option=true ;;
            esac
        else
            args+=("$w")
        fi
    done
    [[ $split == true ]] && skip=1 option=$prev

    local command=''
    for w in $commands; do
        [[ ${args[0]-} == "$w" ]] && command=$w
    done

    # what may come here: an option's value, or the argument at this place, or (where no argument can
    # come, or the word starts with '-') the command's options, as zsh's _arguments offers them
    local what=options sources=("${args[1]-}")
    [[ $command == diff ]] && sources+=("${args[2]-}")
    if ((skip > 0)); then
        what=$option
    elif [[ $options_end == true || $cur != -* ]]; then
        [[ $options_end == true ]] && what=''
        case $command:${#args[@]} in
            :0) what=first ;;
            :*) ;; # after a bare FILE only options
            *:1 | diff:2) what=files ;;
            dequant:2 | stats:*) what=tensors ;;
            diff:*) [[ $tensor_option == true ]] && what=tensors ;;
            tokenize:2 | detokenize:* | set:*) what='' ;; # a text, token ids, KEY=VALUE
        esac
    fi
    case $what in
        options) mapfile -t COMPREPLY < <(compgen -W "$(_gguf_inspect_options "$command")" -- "$cur") ;;
        first)
            mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
            _gguf_inspect_files gguf
            ;;
        files) _gguf_inspect_files gguf ;;
        tensors) _gguf_inspect_tensor_names "${sources[@]}" ;;
        -o | --output | --file | --chat-template-file | --check) _gguf_inspect_files ;;
        --cache-type-k | --cache-type-v)
            mapfile -t COMPREPLY < <(compgen -W 'f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1' -- "$cur")
            ;;
        --tensor) [[ $command == diff ]] && _gguf_inspect_tensor_names "${sources[@]}" ;;
    esac

    # bash replaces only the text after the last ':' of the word (COMP_WORDBREAKS)
    if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
        local colon_word=${cur%"${cur##*:}"}
        for i in "${!COMPREPLY[@]}"; do
            COMPREPLY[i]=${COMPREPLY[i]#"$colon_word"}
        done
    fi
    return 0
}
complete -F _gguf_inspect gguf-inspect
