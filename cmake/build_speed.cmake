# SPDX-License-Identifier: GPL-3.0-or-later
# How the build is kept fast (docs/BUILDING.md): a compiler cache shared by every checkout on the
# machine, a fast linker, and precompiled Qt headers for the Qt-heavy targets. Each is used only
# when its tool is installed (scripts/deps.sh installs them), so a plain `cmake` still works.

# ccache, with the settings that let a fresh clone in any folder hit what another clone compiled:
# paths under the checkout are rewritten relative (base_dir), the working directory is left out of
# the hash (hash_dir), and the precompiled header's timestamps and defines may differ (sloppiness).
# The cache lives outside every checkout, so it outlasts them: GGUF_CACHE_DIR/ccache.
option(GGUF_CCACHE "Compile through ccache when it is installed" ON)
set(_gguf_cache_home "$ENV{XDG_CACHE_HOME}")
if(NOT _gguf_cache_home)
  set(_gguf_cache_home "$ENV{HOME}/.cache")
endif()
set(GGUF_CACHE_DIR "${_gguf_cache_home}/gguf-explorer" CACHE PATH
    "Where the compiler cache (ccache/) and clang-tidy's results (clang-tidy/) are kept across checkouts")
set(GGUF_CCACHE_SIZE "6G" CACHE STRING "The compiler cache's size limit")
find_program(GGUF_CCACHE_PROGRAM ccache)
if(GGUF_CCACHE AND GGUF_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      "${CMAKE_COMMAND}" -E env
      "CCACHE_DIR=${GGUF_CACHE_DIR}/ccache"
      "CCACHE_MAXSIZE=${GGUF_CCACHE_SIZE}"
      "CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}"
      "CCACHE_NOHASHDIR=true"
      "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      "${GGUF_CCACHE_PROGRAM}")
  message(STATUS "Compiler cache: ${GGUF_CACHE_DIR}/ccache")
endif()

# mold, else lld: linking the ~100 test programs is a large part of an incremental build.
set(GGUF_LINKER "auto" CACHE STRING "The linker: auto (mold, else lld, else the default), mold, lld or default")
if(GGUF_LINKER STREQUAL "auto")
  find_program(GGUF_MOLD_PROGRAM mold)
  find_program(GGUF_LLD_PROGRAM ld.lld)
  if(GGUF_MOLD_PROGRAM)
    set(GGUF_LINKER mold)
  elseif(GGUF_LLD_PROGRAM)
    set(GGUF_LINKER lld)
  else()
    set(GGUF_LINKER default)
  endif()
endif()
if(NOT GGUF_LINKER STREQUAL "default")
  add_link_options("-fuse-ld=${GGUF_LINKER}")
  message(STATUS "Linker: ${GGUF_LINKER}")
endif()

# Precompiled Qt headers for the Qt-heavy targets: cmake/pch/ holds one header per flavour (Qt Gui
# for the item models, Qt Widgets for the window's libraries, Qt Widgets and Qt Test for the window's
# tests). A library compiles its own; the ~50 window tests share one compiled by a target of their
# own flags (gguf_reuse_pch), so a definition that differs from the owner's makes GCC refuse the
# header: -Winvalid-pch (on with CMake's precompiled headers) says so, and GGUF_WERROR fails the
# build. GCC needs -fpch-preprocess for ccache to cache what is compiled with a precompiled header.
option(GGUF_PCH "Precompile the Qt headers of the window's targets" ON)

function(_gguf_pch_flags target)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -fpch-preprocess)
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Xclang -fno-pch-timestamp)
  endif()
endfunction()

# gguf_precompile(target FLAVOUR): qt_gui, qt_widgets or qt_test (cmake/pch/<flavour>.h).
function(gguf_precompile target flavour)
  if(GGUF_PCH)
    target_precompile_headers(${target} PRIVATE "${PROJECT_SOURCE_DIR}/cmake/pch/${flavour}.h")
    _gguf_pch_flags(${target})
  endif()
endfunction()

# gguf_reuse_pch(target owner): compile target with the precompiled header owner made.
function(gguf_reuse_pch target owner)
  if(GGUF_PCH)
    target_precompile_headers(${target} REUSE_FROM ${owner})
    _gguf_pch_flags(${target})
  endif()
endfunction()

# Unity batches (GGUF_UNITY, on in the sanitizer build only): a library's .cpp files are compiled
# GGUF_UNITY_BATCH at a time, as one translation unit that #includes them, so the headers and the
# inline code they share are compiled once per batch, not once per file. CMake's own unity build
# writes absolute paths into its batch files, so a clone in another folder would miss the compiler
# cache; these batch files name their sources relative to themselves, and every clone's build of
# the same folder depth writes the same text. The sources stay in the target (HEADER_FILE_ONLY), so
# that editors and AUTOMOC still see them. Sources must then not clash when read together: no two
# of one target may define the same name in an anonymous namespace (the build fails if they do).
option(GGUF_UNITY "Compile each library's sources in batches of GGUF_UNITY_BATCH" OFF)
set(GGUF_UNITY_BATCH 8 CACHE STRING "How many sources one unity batch holds")

function(gguf_unity target)
  if(NOT GGUF_UNITY)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  get_target_property(binary_dir ${target} BINARY_DIR)
  set(cpp)
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.cpp$" AND NOT source MATCHES "^\\$<")
      get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${source_dir}")
      if(path MATCHES "^${PROJECT_SOURCE_DIR}/" AND NOT path MATCHES "^${PROJECT_BINARY_DIR}/")
        list(APPEND cpp "${path}")
      endif()
    endif()
  endforeach()
  list(LENGTH cpp count)
  if(count LESS 2)
    return()
  endif()
  set(unity_dir "${binary_dir}/${target}_unity")
  math(EXPR batches "(${count} + ${GGUF_UNITY_BATCH} - 1) / ${GGUF_UNITY_BATCH}")
  math(EXPR last "${batches} - 1")
  set(batch_files)
  foreach(b RANGE ${last})
    set(text "// generated by gguf_unity (cmake/build_speed.cmake)\n")
    math(EXPR i "${b}")
    while(i LESS count)
      list(GET cpp ${i} path)
      file(RELATIVE_PATH relative "${unity_dir}" "${path}")
      string(APPEND text "#include \"${relative}\"\n")
      math(EXPR i "${i} + ${batches}")
    endwhile()
    set(batch_file "${unity_dir}/unity_${b}.cpp")
    file(CONFIGURE OUTPUT "${batch_file}" CONTENT "${text}" @ONLY)
    list(APPEND batch_files "${batch_file}")
  endforeach()
  set_source_files_properties(${cpp} TARGET_DIRECTORY ${target} PROPERTIES HEADER_FILE_ONLY ON)
  target_sources(${target} PRIVATE ${batch_files})
endfunction()
