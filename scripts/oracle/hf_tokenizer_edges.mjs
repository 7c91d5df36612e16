// SPDX-License-Identifier: GPL-3.0-or-later
// Edge cases of tokenizer.json semantics, answered by Hugging Face's tokenizers library itself
// (npm tokenizers@0.23.2): small tokenizer.json files, each with texts, and the ids, token strings
// and decodings the library gives. Writes tests/data/hf-tokenizers/edges.json (tst_tokenizer_json).
// Run from a folder where `npm install tokenizers@0.23.2` was done:
//   node /path/to/scripts/oracle/hf_tokenizer_edges.mjs /path/to/project
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(path.join(process.cwd(), 'index.js'));
const { Tokenizer } = require('tokenizers');
const project = process.argv[2];

// A small BPE vocabulary: printable ASCII, a few others, ▁, and byte fallback tokens.
function base() {
  const vocab = {};
  let id = 0;
  const add = (t) => { if (!(t in vocab)) vocab[t] = id++; };
  add('<unk>'); add('<s>'); add('</s>');
  for (let b = 0; b < 256; ++b) add('<0x' + b.toString(16).toUpperCase().padStart(2, '0') + '>');
  for (let c = 32; c < 127; ++c) add(String.fromCharCode(c));
  for (const c of ['\n', '\u2581', 'Ⓐ', '\u180E', '\u0378', 'é', 'Ġ']) add(c);
  const merges = [['h', 'e'], ['l', 'l'], ['he', 'll'], ['hell', 'o'], ['\u2581', 'hello'], ['H', 'i'], ['a', 'b']];
  for (const [a, b] of merges) add(a + b);
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, pre_tokenizer: null,
    post_processor: null, decoder: null,
    model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null,
             end_of_word_suffix: null, fuse_unk: false, byte_fallback: true, ignore_merges: false,
             vocab, merges },
  };
}

const added = (id, content, o = {}) => ({ id, content, single_word: false, lstrip: false, rstrip: false,
                                          normalized: false, special: false, ...o });

const cases = [
  ['rstrip-then-added', (t) => { t.added_tokens = [added(500, '<|end|>', { rstrip: true, special: true }), added(501, '\n')]; },
   ['<|end|>\nHi', '<|end|>  \n\nHi', 'a<|end|>   x']],
  ['empty-metaspace-always', (t) => { t.pre_tokenizer = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true }; },
   ['', ' ', 'hello']],
  ['empty-bytelevel-prefix', (t) => { t.pre_tokenizer = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true }; },
   ['', 'hello']],
  ['strip-then-metaspace-first', (t) => {
     t.normalizer = { type: 'Strip', strip_left: true, strip_right: true };
     t.pre_tokenizer = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true };
     t.decoder = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true }; },
   [' hello', 'hello', '   ', ' hello hello ']],
  ['prepend-then-metaspace-first', (t) => {
     t.normalizer = { type: 'Prepend', prepend: '\u2581' };
     t.pre_tokenizer = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true };
     t.added_tokens = [added(500, '<s>', { special: true })]; },
   ['hello', '<s>hello', 'hi <s> hello']],
  ['regex-space-180e', (t) => {
     t.pre_tokenizer = { type: 'Split', pattern: { Regex: "'s|'t| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+" }, behavior: 'Isolated', invert: false }; },
   ['a\u180E\u180Eb', 'a \u180E b', 'x\u00A0\u3000y', ' \u180Ex']],
  ['whitespace-word-class', (t) => { t.pre_tokenizer = { type: 'Whitespace' }; },
   ['aⒶb', 'a\u180Eb', 'e\u0301x y']],
  ['single-word-alphabetic', (t) => { t.added_tokens = [added(500, 'xy', { single_word: true })]; },
   ['Ⓐxy', ' xy ', 'axy', 'xy', '\u0301xy', '_xy']],
  ['bert-clean-unassigned', (t) => { t.normalizer = { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: false }; },
   ['a\u0378b', 'a\u200Bb', 'a\uE000b']],
  ['empty-match-replace', (t) => { t.normalizer = { type: 'Replace', pattern: { Regex: 'a*' }, content: '-' }; },
   ['ab', 'b', 'aab']],
  ['empty-after-strip-replace', (t) => { t.normalizer = { type: 'Sequence', normalizers: [{ type: 'Strip', strip_left: true, strip_right: true }, { type: 'Replace', pattern: { Regex: 'x*' }, content: 'a' }] }; },
   ['   ', '', ' b ']],
  ['empty-string-split', (t) => { t.pre_tokenizer = { type: 'Split', pattern: { String: '' }, behavior: 'Isolated', invert: false }; },
   ['hello', 'ab']],
  ['template-without-specials', (t) => {
     t.post_processor = { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
       pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
       special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } } }; },
   ['hello']],
  ['byte-fallback-sign', (t) => { t.decoder = { type: 'ByteFallback' }; t.model.vocab['<0x+A>'] = 600; },
   ['']],
];

const out = [];
for (const [name, edit, texts] of cases) {
  const t = base();
  edit(t);
  const file = path.join(os.tmpdir(), `hf-edge-${name}.json`);
  fs.writeFileSync(file, JSON.stringify(t));
  const tok = Tokenizer.fromFile(file);
  const entry = { name, tokenizer: t, cases: [] };
  for (const text of texts)
    for (const addSpecial of [false, true]) {
      const e = await tok.encode(text, null, { addSpecialTokens: addSpecial });
      const ids = e.getIds();
      entry.cases.push({ text, add_special: addSpecial, ids, tokens: e.getTokens(),
                         decoded: await tok.decode(ids, false), decoded_skip: await tok.decode(ids, true) });
    }
  if (name === 'byte-fallback-sign') // the decoder alone: <0x+A> is byte 10
    entry.cases.push({ decode_only: [600, 40], decoded: await tok.decode([600, 40], false) });
  out.push(entry);
  fs.unlinkSync(file);
}
const target = path.join(project, 'tests/data/hf-tokenizers/edges.json');
fs.writeFileSync(target, JSON.stringify({ generator: 'scripts/oracle/hf_tokenizer_edges.mjs; Hugging Face tokenizers via npm tokenizers@0.23.2', edges: out }, null, 1) + '\n');
console.log(`wrote ${target}: ${out.length} tokenizers`);
