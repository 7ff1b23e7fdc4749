/*
 * irc.h: the C API of irc, an optimizing shader compiler for DXBC-IR (dxbc-spirv's IR).
 *
 * Link libirc.a (plus -lpthread -ldl -lm) or libirc.so, built by
 * `cargo build --release -p irc-capi` into target/release/.
 *
 * Rules every function keeps:
 *  - No panic or crash crosses the boundary: compiler bugs come back as IRC_KIND_INTERNAL
 *    errors; accessors return their documented "nothing" value (NULL, 0, -1).
 *  - Null pointers are errors, never crashes, wherever a pointer may be NULL below; a NULL
 *    compiler or input gives an error result.
 *  - No global mutable state: independent compilers may be used from different threads at
 *    the same time; one compiler must not be used by two threads at once. Results are
 *    immutable.
 *  - Ownership: irc_compiler_new / irc_compile_* return objects freed with
 *    irc_compiler_free / irc_result_free. Strings and bytes returned by irc_result_*
 *    belong to the result and live until it is freed. Strings stored through `char **error`
 *    are freed with irc_string_free. Strings from irc_version / irc_target_name are static.
 *
 * This file is checked against the Rust source by `cargo test -p irc-capi`.
 */
#ifndef IRC_H
#define IRC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Diagnostic kinds (irc_result_error_kind). */
#define IRC_KIND_UNSUPPORTED 0 /* the shader uses something the target cannot express */
#define IRC_KIND_LIMIT 1       /* the program exceeds a hardware limit */
#define IRC_KIND_INPUT 2       /* malformed input, bad option or argument, NULL pointer */
#define IRC_KIND_INTERNAL 3    /* a compiler bug, reported instead of crashing */

/* Shader stages (the IR's EntryPoint stage values). */
#define IRC_STAGE_PIXEL 1
#define IRC_STAGE_VERTEX 2
#define IRC_STAGE_GEOMETRY 4
#define IRC_STAGE_HULL 8
#define IRC_STAGE_DOMAIN 16
#define IRC_STAGE_COMPUTE 32

/* A compiler for one target with fixed options. */
typedef struct IrcCompiler IrcCompiler;
/* The outcome of one compilation: code and friends, or errors. */
typedef struct IrcResult IrcResult;

/* Figures about a compiled program. */
typedef struct IrcStats {
    uint32_t instructions;
    uint32_t code_bytes;
    uint32_t registers;
    uint32_t spills;
    uint32_t fills;
    uint32_t units_filled;
    uint32_t lower_bound;
    uint32_t ir_ops;
} IrcStats;

/* The version of irc, e.g. "0.1.0" (static). */
const char *irc_version(void);

/* The number of registered targets. */
size_t irc_target_count(void);
/* The name of target `index` (static; NULL when out of range). */
const char *irc_target_name(size_t index);
/* 1 if target `index` compiles shaders of `stage` (IRC_STAGE_*), else 0. */
int irc_target_has_stage(size_t index, int32_t stage);

/* The stage (IRC_STAGE_*) of a shader's entry point; `text` nonzero for the .ir text format.
 * -1 for unreadable input, NULL `data` with size > 0, or no entry point. */
int32_t irc_shader_stage(const uint8_t *data, size_t size, int text);

/* Creates a compiler for `target` with `option_count` options, each "key=value":
 * opt-level=0|1|2, container=0|1, or a target option (`irc targets` lists them).
 * Returns NULL on error and, when `error` is not NULL, stores a message in *error
 * (free it with irc_string_free). `options` may be NULL when option_count is 0. */
IrcCompiler *irc_compiler_new(const char *target, const char *const *options,
                              size_t option_count, char **error);
/* Frees a compiler (NULL is ignored). */
void irc_compiler_free(IrcCompiler *compiler);

/* Compiles a shader in the binary .dxir format. Never returns NULL: check irc_result_ok.
 * A NULL compiler, or NULL data with size > 0, gives an IRC_KIND_INPUT error. */
IrcResult *irc_compile_binary(IrcCompiler *compiler, const uint8_t *data, size_t size);
/* Compiles a shader in the .ir text format (`size` bytes of UTF-8, no NUL needed).
 * Never returns NULL; NULL pointers and invalid UTF-8 give IRC_KIND_INPUT errors. */
IrcResult *irc_compile_text(IrcCompiler *compiler, const char *text, size_t size);

/* Frees a result (NULL is ignored); every pointer obtained from it becomes invalid. */
void irc_result_free(IrcResult *result);
/* Frees a string returned through a `char **error` argument (NULL is ignored). */
void irc_string_free(char *s);

/* 1 if the compilation succeeded, 0 if it failed (or result is NULL). */
int irc_result_ok(const IrcResult *result);

/* The number of errors (0 on success; at least 1 on failure). */
size_t irc_result_error_count(const IrcResult *result);
/* Error `index` as one line with its location: "%12 (IMul): unsupported: ..." or
 * "invalid input: byte 0x1c (op 3, FAdd): ...". NULL when out of range. */
const char *irc_result_error(const IrcResult *result, size_t index);
/* The kind (IRC_KIND_*) of error `index`; -1 when out of range. */
int irc_result_error_kind(const IrcResult *result, size_t index);
/* The IR op id (%N) error `index` is pinned to; -1 when none or out of range. */
int64_t irc_result_error_op(const IrcResult *result, size_t index);
/* The opcode name ("IMul") of the op error `index` is pinned to; NULL when none. */
const char *irc_result_error_opcode(const IrcResult *result, size_t index);

/* The number of code sections (0 on failure). */
size_t irc_result_section_count(const IrcResult *result);
/* The name of section `index` ("code" first); NULL when out of range. */
const char *irc_result_section_name(const IrcResult *result, size_t index);
/* The bytes of the section named `name` ("code"), their count in *size (when size is not
 * NULL). NULL (and 0) when there is no such section or name is NULL. */
const uint8_t *irc_result_section(const IrcResult *result, const char *name, size_t *size);
/* The container file (option container=1; lima-fp: MBS1), its size in *size.
 * NULL (and 0) when there is none. */
const uint8_t *irc_result_container(const IrcResult *result, size_t *size);
/* The container format's name ("mbs1"); NULL when there is no container. */
const char *irc_result_container_format(const IrcResult *result);
/* The disassembly of the code ("" on failure). */
const char *irc_result_disassembly(const IrcResult *result);
/* The reflection as a JSON document (docs/reflection.md; "" on failure). */
const char *irc_result_reflection_json(const IrcResult *result);
/* Copies the statistics into *out; returns 0, or -1 when result or out is NULL or the
 * compilation failed. */
int irc_result_stats(const IrcResult *result, IrcStats *out);

#ifdef __cplusplus
}
#endif

#endif /* IRC_H */
