// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jinja_value.h"

#include <optional>
#include <string_view>

// Jinja's filters and tests, Python's string/dict/list methods and the global functions chat
// templates call. Each throws Error for what it cannot do.
namespace gguf::jinja {

Value applyFilter(std::string_view name, const Value &input, const Args &args, const KwArgs &kwargs);
bool applyTest(std::string_view name, const Value &input, const Args &args);
/// `object.name` as a bound method (`text.strip`, `d.items`, `l.append`), or nullopt.
std::optional<Value> method(const Value &object, std::string_view name);
/// A string's characters (code points, as UTF-8 strings).
List characters(const std::string &s);
/// The dict's items as [key, value] pairs; a list's elements; a string's characters; for loops.
List iterate(const Value &v);
/// The global functions: raise_exception, namespace, range, dict, strftime_now (a fixed date, so
/// that a rendering is reproducible).
Value globalFunction(std::string_view name);

} // namespace gguf::jinja
