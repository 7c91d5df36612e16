// Variant of shared/tools/llama-memory.mjs: loads a GGUF with llama.cpp (node-llama-cpp 3.22.1 prebuilt CPU build)
// and prints what llama.cpp allocates. Options:
//   node llama-memory2.mjs MODEL.gguf CTX [--seq N] [--fa on|off|auto] [--ctk TYPE] [--ctv TYPE] [--batch N]
//        [--swa-full] [--embedding] [--log FILE]
// Default: flashAttention off, f16 K/V, sequences 1, batchSize = node-llama-cpp default (min(ctx*seq, 512)).
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
import {writeFileSync} from "node:fs";
const args = process.argv.slice(2);
const modelPath = args[0], ctx = Number(args[1]);
if (!modelPath || !ctx) { console.error("usage: node llama-memory2.mjs MODEL.gguf CTX [--seq N] [--fa on|off|auto] [--ctk T] [--ctv T] [--batch N] [--swa-full] [--embedding] [--log FILE]"); process.exit(2); }
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const flag = (name) => args.includes(name);
const all = [];
const keep = /llama_kv_cache|llama_memory_recurrent|compute buffer|output buffer|model buffer|llama_context: (n_seq_max|n_ctx|n_ctx_seq|n_batch|n_ubatch|causal_attn|flash_attn|kv_unified|n_outputs_max)|print_info: (arch|n_ctx_train|n_embd|n_layer|n_head|n_head_kv|n_rot|n_swa|is_swa_any|n_embd_head_k|n_embd_head_v|n_embd_k_gqa|n_embd_v_gqa|n_ff|ssm_|n_lora|model params|file size|n_vocab)|llama_kv_cache_iswa|full-size SWA|padding V cache|worst-case|graph_reserve: failed|llama_init_from_model|error|exception|resolve_fused_ops: Flash Attention/i;
const drop = /llama_graph_n_input_tensors|llama_model_loader|load_tensors: layer|Resolved model|Simulating context|Loading model for simulator|dev = CPU|: filtered$/;
const lines = [];
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.debug,
  logger: (level, msg) => { const m = msg.replace(/\n$/, ""); all.push(m); if (keep.test(m) && !drop.test(m)) lines.push(m.trim()); }});
let model, context;
try {
  model = await llama.loadModel({modelPath});
  const opts = {contextSize: ctx, sequences: Number(opt("--seq") ?? 1)};
  const fa = opt("--fa") ?? "off";
  opts.flashAttention = fa === "auto" ? "auto" : fa === "on";
  if (opt("--ctk")) opts.experimentalKvCacheKeyType = opt("--ctk").toUpperCase();
  if (opt("--ctv")) opts.experimentalKvCacheValueType = opt("--ctv").toUpperCase();
  if (opt("--batch")) opts.batchSize = Number(opt("--batch"));
  if (flag("--swa-full")) opts.swaFullCache = true;
  console.log("# createContext options: " + JSON.stringify(opts) + (flag("--embedding") ? " (createEmbeddingContext: only contextSize/batchSize are passed on; flashAttention = model default \"auto\")" : ""));
  context = flag("--embedding") ? await model.createEmbeddingContext(opts) : await model.createContext(opts);
  const lc = context._llamaContext ?? context;   // LlamaEmbeddingContext wraps a LlamaContext
  console.log("# context.contextSize=" + lc.contextSize + " batchSize=" + lc.batchSize + " flashAttention=" + lc.flashAttention + " swaFullCache=" + lc._swaFullCache);
  try {
    const mb = model._model.getMemoryBreakdown(), cb = lc._ctx.getMemoryBreakdown();
    console.log("# exact bytes: model memory_breakdown cpuRam=" + mb.cpuRam + "; context memory_breakdown (KV/RS memory + compute) cpuRam=" + cb.cpuRam);
  } catch (e) { console.log("# memory_breakdown unavailable: " + e.message); }
} catch (e) {
  lines.push("EXCEPTION: " + (e?.message ?? e));
}
await new Promise(r => setTimeout(r, 500));
console.log(lines.join("\n"));
if (opt("--log")) writeFileSync(opt("--log"), all.join("\n") + "\n");
try { await context?.dispose(); await model?.dispose(); } catch {}
