// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Shared by the hex view and hex page tests: a built file with a key of every value type and
// tensors of several quant types, and helpers that wait for the byte map and click a byte.
#include "core/format/ggml_types.h"
#include "tests/support/gguf_builder.h"
#include "ui/hex/hex_page.h"
#include "ui/hex/hex_view.h"

#include <QScrollBar>
#include <QSignalSpy>
#include <QtTest>

namespace hex_fixture {

using namespace gguf;
using namespace gguf::test;

inline uint32_t id(GgmlType t)
{
    return static_cast<uint32_t>(t);
}

inline BuiltFile buildFile()
{
    return GgufBuilder()
        .kv("general.architecture", V::str("llama"))
        .kv("u8", V::u8(1))
        .kv("i8", V::i8(-1))
        .kv("u16", V::u16(2))
        .kv("i16", V::i16(-2))
        .kv("u32", V::u32(3))
        .kv("i32", V::i32(-3))
        .kv("f32", V::f32(0.5f))
        .kv("bool", V::boolean(true))
        .kv("string", V::str("text"))
        .kv("u64", V::u64(4))
        .kv("i64", V::i64(-4))
        .kv("f64", V::f64(0.25))
        .kv("arr_f32", V::array(ValueType::Float32, {V::f32(1), V::f32(2)}))
        .kv("arr_string", V::stringArray({"a", "", "bcd"}))
        .kv("arr_nested", V::array(ValueType::Array, {V::array(ValueType::Uint8, {V::u8(9)}), V::stringArray({"x"})}))
        .tensor("token_embd.weight", {64, 3}, id(GgmlType::Q8_0))
        .tensor("blk.0.attn_norm.weight", {5}, id(GgmlType::F32))
        .tensor("blk.0.ffn.weight", {256, 2}, id(GgmlType::Q4_K))
        .tensor("q51.weight", {32, 2}, id(GgmlType::Q5_1))
        .tensor("bitnet.weight", {256}, id(GgmlType::I2_S))
        .tensor("output.weight", {7}, id(GgmlType::F16))
        .build();
}

// Waits until the page's byte map is built.
inline bool waitReady(HexPage &page)
{
    if (page.annotator())
        return true;
    QSignalSpy ready(&page, &HexPage::annotationsReady);
    return ready.wait(5000);
}

// Shows the page at `size` with `model` and waits until its byte map is built.
inline bool showReady(HexPage &page, std::shared_ptr<const gguf::SplitModel> model, QSize size)
{
    page.resize(size);
    page.show();
    if (!QTest::qWaitForWindowExposed(&page))
        return false;
    page.setModel(std::move(model));
    return waitReady(page);
}

// Clicks byte `offset` in the hex column (scrolling to it first).
inline void clickByte(HexView *view, uint64_t offset, bool doubleClick = false)
{
    view->setCursorOffset(offset);
    const QRect cell = view->layout().byteRect(offset, HexLayout::Area::Hex, view->topRow());
    const QPoint at = cell.center() - QPoint(view->horizontalScrollBar()->value(), 0);
    if (doubleClick)
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, at);
    else
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
}

} // namespace hex_fixture
