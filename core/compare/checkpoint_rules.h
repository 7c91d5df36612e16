// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/compare: llama.cpp's conversion rules from Hugging Face names to GGUF names
// (gguf-py's tensor_mapping.py for the architectures pairableArchitectures() lists), read one way
// by the pairing (checkpoint_pairing.cpp) and the other way by the converted model
// (converted_model.cpp); docs/SAFETENSORS.md §7–9.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace gguf::detail::conversion {

// What the converter did to a tensor besides renaming it (docs/SAFETENSORS.md §7).
enum class ConversionStep : uint8_t {
    Plain,
    RopeQ,        // rows regrouped over the attention heads
    RopeK,        // the same over the key/value heads
    Experts,      // one tensor per expert ("{e}" in the name), stacked
    FusedGateExp, // the first half of each expert's rows of a fused gate_up tensor
    FusedUpExp,   // the second half
    FusedExperts, // already stacked (a 3-D tensor of every expert)
};

struct Rule {
    std::string_view gguf;                      // after "blk.N." (or the whole name)
    std::initializer_list<std::string_view> hf; // after the layer prefix; the first found is used
    ConversionStep kind = ConversionStep::Plain;
};

// Names after "blk.N." in the GGUF and after "model.layers.N." in the checkpoint, as gguf-py's
// tensor_mapping.py maps them for the architectures pairableArchitectures() lists.
inline const std::array kLayerRules{
    Rule{"attn_norm.weight", {"input_layernorm.weight"}},
    Rule{"attn_q.weight", {"self_attn.q_proj.weight"}, ConversionStep::RopeQ},
    Rule{"attn_q.bias", {"self_attn.q_proj.bias"}, ConversionStep::RopeQ},
    Rule{"attn_k.weight", {"self_attn.k_proj.weight"}, ConversionStep::RopeK},
    Rule{"attn_k.bias", {"self_attn.k_proj.bias"}, ConversionStep::RopeK},
    Rule{"attn_v.weight", {"self_attn.v_proj.weight"}},
    Rule{"attn_v.bias", {"self_attn.v_proj.bias"}},
    Rule{"attn_output.weight", {"self_attn.o_proj.weight"}},
    Rule{"attn_output.bias", {"self_attn.o_proj.bias"}},
    Rule{"attn_qkv.weight", {"self_attn.qkv_proj.weight"}},
    Rule{"attn_q_norm.weight", {"self_attn.q_norm.weight"}},
    Rule{"attn_k_norm.weight", {"self_attn.k_norm.weight"}},
    Rule{"post_attention_norm.weight", {"post_attention_layernorm.weight"}}, // gemma2/3
    Rule{"post_ffw_norm.weight", {"post_feedforward_layernorm.weight"}},     // gemma2/3
    Rule{"ffn_gate.weight", {"mlp.gate_proj.weight"}},
    Rule{"ffn_up.weight", {"mlp.up_proj.weight", "mlp.gate_up_proj.weight"}}, // phi3 keeps gate_up fused
    Rule{"ffn_down.weight", {"mlp.down_proj.weight"}},
    Rule{"ffn_gate_inp.weight", {"mlp.gate.weight", "block_sparse_moe.gate.weight"}},
    Rule{"ffn_gate_exps.weight",
         {"mlp.experts.{e}.gate_proj.weight", "block_sparse_moe.experts.{e}.w1.weight"},
         ConversionStep::Experts},
    Rule{"ffn_up_exps.weight",
         {"mlp.experts.{e}.up_proj.weight", "block_sparse_moe.experts.{e}.w3.weight"},
         ConversionStep::Experts},
    Rule{"ffn_down_exps.weight",
         {"mlp.experts.{e}.down_proj.weight", "block_sparse_moe.experts.{e}.w2.weight"},
         ConversionStep::Experts},
    Rule{"ffn_gate_inp_shexp.weight", {"mlp.shared_expert_gate.weight"}},
    Rule{"ffn_gate_shexp.weight", {"mlp.shared_expert.gate_proj.weight"}},
    Rule{"ffn_up_shexp.weight", {"mlp.shared_expert.up_proj.weight"}},
    Rule{"ffn_down_shexp.weight", {"mlp.shared_expert.down_proj.weight"}},
};

// Experts stored already stacked (transformers ≥ 4.57 for qwen2/3-moe): tried when no per-expert
// tensor is found.
inline const std::array kFusedExpertRules{
    Rule{"ffn_gate_exps.weight",
         {"mlp.experts.gate_up_proj", "mlp.experts.gate_up_proj.weight"},
         ConversionStep::FusedGateExp},
    Rule{"ffn_up_exps.weight",
         {"mlp.experts.gate_up_proj", "mlp.experts.gate_up_proj.weight"},
         ConversionStep::FusedUpExp},
    Rule{"ffn_down_exps.weight",
         {"mlp.experts.down_proj", "mlp.experts.down_proj.weight"},
         ConversionStep::FusedExperts},
};

inline const std::array kModelRules{
    Rule{"token_embd.weight", {"embed_tokens.weight"}},
    Rule{"output_norm.weight", {"norm.weight"}},
};

// Where transformers puts the decoder: text-only models under "model.", multimodal ones under the
// language model.
inline constexpr std::array<std::string_view, 3> kPrefixes{"model.", "language_model.model.", "model.language_model."};

inline bool gemmaFamily(std::string_view arch)
{
    return arch == "gemma" || arch == "gemma2" || arch == "gemma3";
}

// gemma2 and gemma3 norm around the attention and the FFN both ways: their post_attention_layernorm
// is the attention's output norm and pre_feedforward_layernorm the FFN's; elsewhere (gemma v1
// included) post_attention_layernorm is the norm before the FFN (tensor_mapping.py's FFN_NORM).
inline bool sandwichNorms(std::string_view arch)
{
    return arch == "gemma2" || arch == "gemma3";
}

// The GGUF's ffn_norm, the norm before the FFN: gemma2/3's pre_feedforward_layernorm, elsewhere
// post_attention_layernorm.
inline const Rule kFfnNormRule{"ffn_norm.weight", {"post_attention_layernorm.weight"}};
inline const Rule kSandwichFfnNormRule{"ffn_norm.weight", {"pre_feedforward_layernorm.weight"}};
inline const Rule &ffnNormRule(std::string_view arch)
{
    return sandwichNorms(arch) ? kSandwichFfnNormRule : kFfnNormRule;
}

} // namespace gguf::detail::conversion
