#!/bin/sh
# Runs the memory oracle over the synthetic models; prints every command and the captured lines.
# Usage (from a folder holding llama-memory2.mjs, node_modules/ with node-llama-cpp 3.22.1, and models/
# made by make_models.py):  sh run_oracle.sh > oracle-runs.txt
# REAL_FIXTURE=/path/to/tiny-llama-tied-q8_0.gguf adds three reference runs at the end.
run() {
  model=$1; shift
  echo "\$ node llama-memory2.mjs models/$model.gguf $*"
  if [ "$first" = 1 ]; then
    node llama-memory2.mjs models/$model.gguf "$@" 2>&1
  else
    node llama-memory2.mjs models/$model.gguf "$@" 2>&1 | grep -v '^print_info'
  fi
  echo
  first=0
}
for m in llama-gqa qwen2 gemma2-swa gemma3-swa deepseek2-mla deci-perlayer-kv deci-kv0 mamba bert-embed; do
  echo "=================================================================== $m"
  first=1
  run $m 4096
  run $m 1000
  run $m 4096 --fa on
  run $m 4096 --fa auto
  run $m 4096 --ctk q8_0 --ctv q8_0 --fa on
  run $m 4096 --seq 2
  case $m in
    gemma2-swa|gemma3-swa)
      run $m 8192
      run $m 8192 --batch 128
      run $m 8192 --swa-full
      run $m 8192 --ctk q8_0 --ctv q8_0 --fa on
      run $m 8192 --seq 2
      run $m 1000 --batch 128 ;;
  esac
  case $m in gemma3-swa) run $m 32768 ;; esac
  case $m in llama-gqa) run $m 3000; run $m 1000 --seq 2; run $m 4096 --batch 256; run $m 4096 --seq 2 --fa on ;; esac
  case $m in mamba) run $m 4096 --seq 4; run $m 4096 --seq 2 --fa on ;; esac
  case $m in bert-embed) run $m 512; run $m 512 --embedding; run $m 4096 --embedding ;; esac
done
# optional reference: the project's real fixture (32000-token vocab, shows the output buffer = n_vocab*4*n_seq)
if [ -n "$REAL_FIXTURE" ]; then
  echo "=================================================================== reference: $REAL_FIXTURE"
  for a in "" "--seq 2" "--fa on --seq 2"; do
    echo "\$ node llama-memory2.mjs $REAL_FIXTURE 4096 $a"
    node llama-memory2.mjs "$REAL_FIXTURE" 4096 $a 2>&1 | grep -v '^print_info'
    echo
  done
fi
