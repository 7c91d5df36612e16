import {getLlama} from "node-llama-cpp";
import fs from "fs";
const [model, textsFile, special] = process.argv.slice(2);
const texts = JSON.parse(fs.readFileSync(textsFile, "utf8"));
const llama = await getLlama({gpu: false, logLevel: "error"});
const m = await llama.loadModel({modelPath: model, vocabOnly: true});
const out = texts.map(t => Array.from(m.tokenize(t, special === "1")));
console.log(JSON.stringify(out));
