// SPDX-License-Identifier: GPL-3.0-or-later
// The one source of a target that only compiles a precompiled header for others to reuse
// (gguf_reuse_pch in cmake/build_speed.cmake).
