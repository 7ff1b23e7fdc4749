/*
 * compile.c: compiles shaders through irc's C API and prints, for each registered target
 * whose stages include the shader's, the code size and a hash of the code bytes.
 *
 *   cargo build --release -p irc-capi
 *   cc -std=c99 -Wall -Itools/capi/include tools/capi/examples/compile.c \
 *      target/release/libirc.a -lpthread -ldl -lm -o /tmp/irc-compile
 *   /tmp/irc-compile testsuite/examples/textured_fog.dxir testsuite/examples/textured_fog.ir
 *   /tmp/irc-compile --bad-input
 *
 * Files ending in ".ir" are read as text, anything else as the binary .dxir format.
 * Output, one line per (file, target):
 *   FILE TARGET ok code BYTES fnv1a64 HASH
 *   FILE TARGET error KIND: FIRST ERROR
 * `--bad-input` feeds the API truncated bytes, an unknown target, a bad option and NULL
 * pointers, prints what comes back, and exits 1 if any of them did not give an error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irc.h"

static uint64_t fnv1a64(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger) { free(buf); buf = NULL; }
            buf = bigger;
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

static int is_text(const char *path) {
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".ir") == 0;
}

static IrcResult *compile(IrcCompiler *c, const uint8_t *data, size_t size, int text) {
    return text ? irc_compile_text(c, (const char *)data, size)
                : irc_compile_binary(c, data, size);
}

static void print_result(const char *file, const char *target, const IrcResult *r) {
    if (irc_result_ok(r)) {
        size_t n = 0;
        const uint8_t *code = irc_result_section(r, "code", &n);
        printf("%s %s ok code %zu fnv1a64 %016" PRIx64 "\n", file, target, n, fnv1a64(code, n));
    } else {
        printf("%s %s error %d: %s\n", file, target, irc_result_error_kind(r, 0),
               irc_result_error(r, 0));
    }
}

static int compile_files(int argc, char **argv) {
    int status = 0;
    for (int a = 1; a < argc; a++) {
        size_t size = 0;
        uint8_t *data = read_file(argv[a], &size);
        if (!data) {
            fprintf(stderr, "%s: cannot read\n", argv[a]);
            status = 2;
            continue;
        }
        int text = is_text(argv[a]);
        int32_t stage = irc_shader_stage(data, size, text);
        int fitting = 0;
        for (size_t t = 0; t < irc_target_count(); t++) {
            if (stage < 0 || !irc_target_has_stage(t, stage)) continue;
            fitting++;
            char *error = NULL;
            IrcCompiler *c = irc_compiler_new(irc_target_name(t), NULL, 0, &error);
            if (!c) {
                printf("%s %s error: %s\n", argv[a], irc_target_name(t), error);
                irc_string_free(error);
                status = 2;
                continue;
            }
            IrcResult *r = compile(c, data, size, text);
            print_result(argv[a], irc_target_name(t), r);
            irc_result_free(r);
            irc_compiler_free(c);
        }
        if (!fitting) printf("%s no target for stage %d\n", argv[a], (int)stage);
        free(data);
    }
    return status;
}

/* Prints one bad-input case; returns 1 if it wrongly succeeded. */
static int expect_error(const char *what, IrcResult *r) {
    int ok = irc_result_ok(r);
    printf("bad input: %s -> %s", what, ok ? "SUCCEEDED" : "error");
    if (!ok)
        printf(" (kind %d, %zu error(s)): %s", irc_result_error_kind(r, 0),
               irc_result_error_count(r), irc_result_error(r, 0));
    printf("\n");
    irc_result_free(r);
    return ok;
}

static int bad_input(void) {
    int wrong = 0;
    char *error = NULL;

    IrcCompiler *none = irc_compiler_new("no-such-gpu", NULL, 0, &error);
    printf("bad input: unknown target -> %s: %s\n", none ? "SUCCEEDED" : "NULL",
           error ? error : "(no message)");
    wrong += none != NULL || error == NULL;
    irc_string_free(error);
    irc_compiler_free(none);

    error = NULL;
    const char *bad_opts[] = {"legacy-mul=fast"};
    none = irc_compiler_new(irc_target_name(0), bad_opts, 1, &error);
    printf("bad input: bad option value -> %s: %s\n", none ? "SUCCEEDED" : "NULL",
           error ? error : "(no message)");
    wrong += none != NULL || error == NULL;
    irc_string_free(error);
    irc_compiler_free(none);

    none = irc_compiler_new(NULL, NULL, 0, NULL);
    printf("bad input: NULL target, NULL error -> %s\n", none ? "SUCCEEDED" : "NULL");
    wrong += none != NULL;
    none = irc_compiler_new(irc_target_name(0), NULL, 3, NULL);
    printf("bad input: NULL options with a count -> %s\n", none ? "SUCCEEDED" : "NULL");
    wrong += none != NULL;

    const char *opts[] = {"opt-level=2"};
    IrcCompiler *c = irc_compiler_new(irc_target_name(0), opts, 1, NULL);
    if (!c) {
        printf("cannot create a compiler for %s\n", irc_target_name(0));
        return 1;
    }
    static const uint8_t truncated[] = {0x05, 0x01, 0x02};
    wrong += expect_error("truncated bytes", irc_compile_binary(c, truncated, sizeof truncated));
    wrong += expect_error("empty bytes", irc_compile_binary(c, truncated, 0));
    wrong += expect_error("NULL data", irc_compile_binary(c, NULL, 10));
    wrong += expect_error("NULL compiler", irc_compile_binary(NULL, truncated, 3));
    const char *junk = "%1 = Bogus";
    wrong += expect_error("bad text", irc_compile_text(c, junk, strlen(junk)));
    wrong += expect_error("NULL text", irc_compile_text(c, NULL, 4));
    const char invalid_utf8[] = {'%', (char)0xff, '1'};
    wrong += expect_error("invalid UTF-8", irc_compile_text(c, invalid_utf8, 3));
    irc_compiler_free(c);

    /* Accessors on NULL: documented "nothing" values, no crash. */
    size_t n = 99;
    IrcStats stats;
    int nulls = irc_result_ok(NULL) == 0 && irc_result_error_count(NULL) == 0 &&
                irc_result_error(NULL, 0) == NULL && irc_result_section(NULL, "code", &n) == NULL &&
                n == 0 && irc_result_stats(NULL, &stats) == -1 && irc_target_name(1000) == NULL &&
                irc_shader_stage(NULL, 5, 0) == -1;
    printf("bad input: accessors on NULL -> %s\n", nulls ? "nothing values" : "WRONG");
    wrong += !nulls;
    irc_result_free(NULL);
    irc_compiler_free(NULL);
    irc_string_free(NULL);
    return wrong ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--bad-input") == 0) return bad_input();
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE... | --bad-input   (irc %s)\n", argv[0], irc_version());
        return 2;
    }
    return compile_files(argc, argv);
}
