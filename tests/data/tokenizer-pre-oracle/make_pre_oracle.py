#!/usr/bin/env python3
# Makes pre-oracle.json: for every tokenizer.ggml.pre value llama.cpp knows, the ids llama.cpp
# gives for the texts below, from copies of real BPE vocabularies (BASE…) whose tokenizer.ggml.pre
# is that value. Needs node and node-llama-cpp 3.22.1 (see README.md); the test suite needs neither.
#
#   python3 make_pre_oracle.py PRE_LIST ORACLE_DIR OUT.json BASE.gguf…
#
# PRE_LIST: one value per line (from llama.cpp's src/llama-vocab.cpp impl::load); ORACLE_DIR holds
# node_modules and tokenize.mjs.
import json, os, struct, subprocess, sys, tempfile

EXTRA = [
    # CJK, with Han outside the BMP, kana and Hangul
    "我爱北京天安门，天安门上太阳升。", "日本語のテキストとカタカナ、ひらがな。", "漢字𠀋𡈽と㐀䶵",
    "한국어 텍스트입니다 123개", "ㄱㄴㄷ ㄅㄆㄇ 가나다",
    # Thai, Arabic, Hebrew, Devanagari
    "ภาษาไทยเป็นภาษาที่มีวรรณยุกต์ ๑๒๓", "مرحبا بالعالم ١٢٣٤٥ كيف حالك؟", "שָׁלוֹם עוֹלָם",
    "नमस्ते दुनिया, हिन्दी भाषा। १२३४",
    # emoji
    "👋🏽 hello 🧑‍💻 world 🇩🇪! 🎉🎉🎉", "❤️‍🔥 ✨ ☕",
    # digit runs of 1 to 7, and digits inside words and numbers
    "1 12 123 1234 12345 123456 1234567", "x1234567y ab12cd 9a99b999c",
    "3.14159 and 1,234,567.89 or 2026-12-07", "١٢٣٤٥٦٧ ०१२३४५६ ¹²³",
    # code
    "def f(x):\n\tif x > 10:\n\t\treturn x**2  # square\n    return [i for i in range(x)]\n",
    "int main(){printf(\"%d\\n\", 0x1F);return a->b[i]<=c&&d!=e;}",
    "const re = /^[a-z]+$/gi; // tokens\n<div class=\"x\">&amp;</div>",
    # whitespace runs
    "a  b   c    d     e", "\n\n\n  \t\t  \r\n x\n \n", "   leading and trailing   ",
    "\u3000full\u3000width\u00a0nbsp\u2009thin\u200bzw",
    # case, contractions, marks, symbols
    "HelloWorld CamelCaseXML iPhone McDonald's", "I'M YOU'RE we'll THEY'VE it'S",
    "e\u0301 a\u0308 n\u0303 Straße ǅemal", "~~tilde~~ $100 + <tag> ^caret^ `tick` |pipe| ≤≥",
    "！？（）：；、。「」『』…—", "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ１２３",
]


def splice_pre(data: bytes, value: str) -> bytes:
    key = b"tokenizer.ggml.pre"
    at = data.find(struct.pack("<Q", len(key)) + key)
    if at < 0:
        raise SystemExit("the base vocabulary has no tokenizer.ggml.pre")
    value_at = at + 8 + len(key)
    vtype, length = struct.unpack_from("<IQ", data, value_at)
    assert vtype == 8, "tokenizer.ggml.pre is not a string"
    end = value_at + 12 + length
    raw = value.encode()
    return data[:value_at] + struct.pack("<IQ", 8, len(raw)) + raw + data[end:]


def tokenize_all(oracle_dir, path, texts, texts_file, special, tmp):
    """The ids of every text; null for a text on which llama.cpp aborts (it asserts that no merge
    half holds a space, which a pre-tokenizer that keeps spaces in words without byte encoding
    breaks), found by running the texts one at a time when the whole run fails."""
    run = subprocess.run(["node", "tokenize.mjs", path, texts_file, special], cwd=oracle_dir,
                         capture_output=True, text=True)
    if run.returncode == 0:
        return json.loads(run.stdout)
    out = []
    one_file = os.path.join(tmp, "one.json")
    for text in texts:
        json.dump([text], open(one_file, "w", encoding="utf-8"), ensure_ascii=False)
        run = subprocess.run(["node", "tokenize.mjs", path, one_file, special], cwd=oracle_dir,
                             capture_output=True, text=True)
        out.append(json.loads(run.stdout)[0] if run.returncode == 0 else None)
    return out


def main():
    pre_list, oracle_dir, out = sys.argv[1:4]
    bases = sys.argv[4:]
    values = [v for v in open(pre_list, encoding="utf-8").read().split("\n") if v]
    here = os.path.dirname(os.path.abspath(__file__))
    texts = json.load(open(os.path.join(here, "..", "tokenizer-oracle", "oracle.json"), encoding="utf-8"))["texts"]
    texts = texts + EXTRA
    results, index, by_pre = [], {}, {value: [] for value in values}
    with tempfile.TemporaryDirectory() as tmp:
        texts_file = os.path.join(tmp, "texts.json")
        json.dump(texts, open(texts_file, "w", encoding="utf-8"), ensure_ascii=False)
        for base in bases:
            data = open(base, "rb").read()
            for value in values:
                path = os.path.join(tmp, "vocab.gguf")
                open(path, "wb").write(splice_pre(data, value))
                runs = [tokenize_all(oracle_dir, path, texts, texts_file, special, tmp) for special in ("0", "1")]
                key = json.dumps(runs)
                if key not in index:
                    index[key] = len(results)
                    results.append({"plain": runs[0], "parse_special": runs[1]})
                by_pre[value].append(index[key])
                print(os.path.basename(base), value, index[key], file=sys.stderr)
    doc = {"bases": [os.path.basename(b) for b in bases], "texts": texts, "pre": by_pre, "results": results}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))


main()
