/* scenario/internal.h: what the files of the scenario layer share.  Private.
 *
 * Reading goes bytes -> libxml2 document (document.c: well-formed, no DTD,
 * valid against the schema of schema.c) -> lsim_scenario (reader.c: the
 * document; each equation by its kind, scenario/kinds/; the shared elements
 * and attributes in elements.c: meaning checked).  Every complaint is
 * LSIM_E_INVALID_INPUT `PATH:LINE: message`.  Writing mirrors it (writer.c,
 * the kinds, elements.c); running builds a program with builder.c. */
#ifndef LOWERSIM_SCENARIO_INTERNAL_H
#define LOWERSIM_SCENARIO_INTERNAL_H

#include "lowersim/io_alias.h"
#include "lowersim/lowering.h"
#include "lowersim/registry.h"
#include "lowersim/scenario.h"
#include "lowersim/scenario_generate.h"
#include "lowersim/scenario_kind.h"
#include "lowersim/scenario_run.h"
#include "support/name_index.h"
#include "support/strbuf.h"

#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include <stdarg.h>

/* libxml2 2.12 made the error passed to structured handlers const. */
#if LIBXML_VERSION >= 21200
typedef const xmlError *lsimp_xml_error_ptr;
#else
typedef xmlErrorPtr lsimp_xml_error_ptr;
#endif

/* --- schema.c ------------------------------------------------------------ */

/* The text of testdata/schema/scenario.rng, generated at build time by
 * scenario/embed_text.cmake: NUL-terminated, `_size` bytes without the NUL. */
extern const unsigned char lsimp_scenario_schema_rng[];
extern const size_t lsimp_scenario_schema_rng_size;
/* The same text without comments or whitespace between tags (compiled). */
extern const unsigned char lsimp_scenario_schema_compact[];
extern const size_t lsimp_scenario_schema_compact_size;

/* Initializes libxml2 once per process, from any thread (before its first
 * parse or write). */
void lsimp_xml_init(void);

/* The compiled schema, shared by the whole process (compiled on first use,
 * under a lock; a failed compilation is retried by the next call).
 * Borrowed: valid until the process ends. */
int lsimp_schema_get(xmlRelaxNGPtr *out, lsim_error *err);

/* Puts into `out` what is wrong with `node` in words a scenario author can
 * act on, given libxml2's RelaxNG `message` about it: an unknown element or
 * attribute, a missing attribute or child, a value outside its choices.
 * Falls back to `message`.  Only after lsimp_schema_get succeeded. */
void lsimp_schema_explain(const xmlNode *node, const char *message, lsimp_strbuf *out);

/* The element a RelaxNG `message` of the form "Element NAME failed to
 * validate attributes" (or "content") is about: libxml2 names `node` (NULL
 * inside a choice of elements, and sometimes a child of it, <result> of a
 * <pure_callback>), so `node` or its nearest ancestor NAME, else the first
 * element NAME of `doc` whose attributes the schema refuses, else `node`. */
const xmlNode *lsimp_schema_locate(const xmlDoc *doc, const xmlNode *node, const char *message);

/* --- xml_capture.c --------------------------------------------------------- */

/* Routes the calling thread's libxml2 errors to `capture` (structured) and
 * nowhere (generic) until lsimp_xml_capture_end puts back what was there:
 * libxml2 keeps these handlers per thread and prints to stderr by default. */
typedef struct lsimp_xml_handlers {
  xmlStructuredErrorFunc structured;
  void *structured_ctx;
  xmlGenericErrorFunc generic;
  void *generic_ctx;
} lsimp_xml_handlers;

void lsimp_xml_capture_begin(lsimp_xml_handlers *saved, xmlStructuredErrorFunc capture, void *data);
void lsimp_xml_capture_end(const lsimp_xml_handlers *saved);

/* --- document.c ---------------------------------------------------------- */

/* Reads a whole file, refusing one above LSIM_SCENARIO_MAX_BYTES.  `*data`
 * is owned (free); LSIM_E_IO `PATH: strerror` when it cannot be read, or
 * `PATH: a FIFO, not a regular file` (lsim_scenario_open_read: only a
 * regular file or a descriptor the process has open is read). */
int lsimp_scenario_load_file(const char *path, char **data, size_t *size, lsim_error *err);

/* The descriptor `path` names as it is spelled: /dev/stdin, /dev/stdout,
 * /dev/stderr, /dev/fd/N, /proc/self/fd/N or /proc/PID/fd/N of this
 * process; -1 for any other path (scenario_output.c). */
int lsimp_descriptor_named(const char *path);

/* --- encoding.c ------------------------------------------------------------ */

/* The scenario `data` in UTF-8: `*out` is NULL when it is already (no
 * declaration, or one of UTF-8 or ASCII), else the owned conversion (free)
 * from the encoding its byte order mark, first bytes or declaration say.
 * `PATH:1: the encoding 'X' is not supported (...)` for one iconv does not
 * know, `PATH:LINE: the bytes at byte offset N are not valid X` for bytes
 * that are not. */
int lsimp_scenario_to_utf8(const char *path, const char *data, size_t size, char **out,
                           size_t *out_size, lsim_error *err);

/* --- limits.c ------------------------------------------------------------ */

/* Refuses, before libxml2 parses `data`, a NUL byte anywhere and elements
 * beyond LSIM_SCENARIO_MAX_ATTRIBUTES, LSIM_SCENARIO_MAX_CHILDREN or
 * LSIM_SCENARIO_MAX_DEPTH (`PATH:LINE:` errors); linear in `size`. */
int lsimp_scenario_check_limits(const char *path, const char *data, size_t size,
                                lsim_error *err);

/* --- document.c (parsing) -------------------------------------------------- */

/* Parses `data` (DTDs refused, no network) and validates it against the
 * schema.  `*out` is owned: xmlFreeDoc. */
int lsimp_scenario_parse(const char *path, const char *data, size_t size, xmlDocPtr *out,
                        lsim_error *err);

/* The line of an element of a document from lsimp_scenario_parse (exact even
 * past line 65535, where libxml2's own count saturates). */
long lsimp_xml_line(const xmlNode *node);

/* Fails with LSIM_E_INVALID_INPUT and `PATH:LINE: <formatted text>`. */
int lsimp_input_fail(lsim_error *err, const char *path, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int lsimp_input_failv(lsim_error *err, const char *path, long line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/* --- elements.c: reading --------------------------------------------------- */

/* A document being read into r->s; the avals of the values defined so far
 * (borrowed from the scenario). */
typedef struct lsimp_reader {
  const char *path;
  lsim_error *err;
  lsim_scenario *s;    /* the lowering being read */
  lsim_scenario *head; /* the first lowering (a session's earlier ones follow it) */
  const lsim_aval **values;
  size_t num_values, cap_values;
} lsimp_reader;

/* LSIM_E_INVALID_INPUT `PATH:LINE: <formatted>` at `node`'s line. */
int lsimp_read_fail(lsimp_reader *r, const xmlNode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Re-raises a library check's complaint about attribute `name`="`value`" of
 * `node`; `detail` is cleared. */
int lsimp_read_fail_detail(lsimp_reader *r, const xmlNode *node, const char *name,
                           const char *value, lsim_error *detail);

/* `n` zeroed items (NULL for none); *rc LSIM_E_NO_MEMORY when it fails. */
void *lsimp_read_alloc(lsimp_reader *r, size_t n, size_t size, int *rc);

bool lsimp_is_element(const xmlNode *n, const char *name); /* NULL name: any element */
xmlNode *lsimp_next_element(xmlNode *n);
size_t lsimp_count_children(const xmlNode *parent, const char *name);

#define lsimp_for_each_child(child, parent)                                                  \
  for (xmlNode *child = lsimp_next_element((parent)->children); child;                       \
       child = lsimp_next_element(child->next))

/* Reads one child element into `item`; `ctx` is the caller's. */
typedef int (*lsimp_child_reader)(lsimp_reader *r, const xmlNode *node, void *item,
                                  const void *ctx);

/* Reads the children named `name` or `other` (NULL: none), in document
 * order, into a new array of `size`-byte items; `*count` is its length even
 * when a child fails, so the scenario frees what was read. */
void *lsimp_read_children(lsimp_reader *r, const xmlNode *parent, const char *name,
                          const char *other, size_t size, lsimp_child_reader read,
                          const void *ctx, size_t *count, int *rc);

/* Attributes: a string (owned, NULL when absent), one that must be present
 * and not empty, "true"/"false", a decimal integer within [min, max]. */
int lsimp_attr_string(lsimp_reader *r, const xmlNode *node, const char *name, char **out);
int lsimp_attr_required(lsimp_reader *r, const xmlNode *node, const char *name, char **out);
int lsimp_attr_bool(lsimp_reader *r, const xmlNode *node, const char *name, bool fallback,
                    bool *out, bool *present);
int lsimp_attr_int(lsimp_reader *r, const xmlNode *node, const char *name, long long min,
                   long long max, long long fallback, long long *out, bool *present);

/* `platform`, one name of attribute `name`="`value`", is well-formed; a
 * comma list of them; an optional attribute holding one or a list. */
int lsimp_check_platform(lsimp_reader *r, const xmlNode *node, const char *name,
                         const char *value, const char *platform);
int lsimp_check_platform_list(lsimp_reader *r, const xmlNode *node, const char *name,
                              const char *list);
int lsimp_attr_platforms(lsimp_reader *r, const xmlNode *node, const char *name, bool list,
                         char **out);

/* Value indices "0,2" ("" for none), each a value defined so far. */
int lsimp_parse_indices(lsimp_reader *r, const xmlNode *node, const char *name, const char *text,
                        size_t **out, size_t *count);
int lsimp_define_value(lsimp_reader *r, const lsim_aval *aval);

/* The aval of value `index` (defined so far). */
const lsim_aval *lsimp_value_aval(const lsimp_reader *r, size_t index);

/* dtype= and shape= of an <arg> or <result>; an equation's <result>
 * children; an equation's implied result, its first operand's aval. */
int lsimp_read_aval(lsimp_reader *r, const xmlNode *node, lsim_aval *out);
int lsimp_read_results(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e);
int lsimp_implied_result(lsimp_reader *r, lsim_scenario_eqn *e);
/* The aval a lax op computes from its first operand `first`:
 * _default_memory_space_rule keeps an array's memory space, and an
 * operation on scalars is in device memory (the generator's rule too). */
static inline lsim_aval lsimp_implied_aval(const lsim_aval *first) {
  lsim_aval a = *first;
  if (!a.rank)
    a.memory_space = LSIM_MEMORY_DEVICE;
  return a;
}

/* --- elements.c: writing ----------------------------------------------------- */

#define LSIMP_WRITER_MAX_DEPTH 8 /* scenario > lower > primitive > result */

/* A document being written; the first problem with the scenario itself is
 * kept in `rc`, a failing libxml2 call (out of memory) in `failed`. */
typedef struct lsimp_writer {
  void *w; /* xmlTextWriterPtr */
  const char *open[LSIMP_WRITER_MAX_DEPTH]; /* the elements being written, for messages */
  int depth;
  bool failed;
  lsim_error *err;
  int rc;
} lsimp_writer;

/* Records that the scenario holds something XML cannot carry. */
void lsimp_write_invalid(lsimp_writer *wr, const char *what, const char *name);
void lsimp_write_start(lsimp_writer *wr, const char *name);
void lsimp_write_end(lsimp_writer *wr);
/* An optional attribute (nothing for NULL), a required one (NULL: invalid),
 * a boolean, an integer, value indices, dtype= and shape=. */
void lsimp_write_attr(lsimp_writer *wr, const char *name, const char *value);
void lsimp_write_attr_required(lsimp_writer *wr, const char *name, const char *value);
void lsimp_write_bool(lsimp_writer *wr, const char *name, bool value);
void lsimp_write_int(lsimp_writer *wr, const char *name, long long value);
void lsimp_write_indices(lsimp_writer *wr, const char *name, const size_t *indices, size_t n);
void lsimp_write_aval(lsimp_writer *wr, const lsim_aval *aval);
/* Text content of the element being written. */
void lsimp_write_text(lsimp_writer *wr, const char *text);
/* An equation's <result> children. */
void lsimp_write_results(lsimp_writer *wr, const lsim_scenario_eqn *e);

/* --- builder.c ------------------------------------------------------------------ */

/* One lowering of a session other than the last (lsim_scenario.next). */
typedef struct lsimp_step_outcome {
  int code;                /* 0 or the JAX error code it failed with */
  lsim_error error;        /* owned: the failure's detail */
  lsim_lowering *lowering; /* owned; NULL when the lowering failed */
  bool executed;
  size_t first_warning, num_warnings; /* the runtime's warnings it gave */
} lsimp_step_outcome;

/* A run of a session: the last lowering's outcome, the ones before it in
 * order, and where the last one's warnings start. */
typedef struct lsimp_session_outcome {
  lsim_scenario_outcome last;
  size_t num_earlier;
  lsimp_step_outcome *earlier; /* owned */
  size_t first_warning;
} lsimp_session_outcome;

/* lsim_scenario_run, keeping every lowering of a session; release with
 * lsimp_session_outcome_clear. */
int lsimp_scenario_run_session(lsim_lowerer *lowerer, const lsim_scenario *s,
                               const lsim_scenario_run_options *options,
                               lsimp_session_outcome *out, lsim_error *err);
void lsimp_session_outcome_clear(lsimp_session_outcome *out);

/* A program being built from a scenario: what it allocates lives until the
 * run ends (the lowering references none of it). */
typedef struct lsimp_builder {
  const lsim_scenario *s;
  lsim_registry *registry; /* the scenario's own primitives' rules go here */
  lsim_error *err;
  void **blocks; /* what build_alloc handed out */
  size_t num_blocks, cap_blocks;
  lsim_primitive **primitives; /* the scenario's own, one per name */
  size_t num_primitives, cap_primitives;
  lsimp_name_index primitive_index; /* name -> its place in `primitives` */
  /* A session: the lowerings before the one being built, in order (their
   * lowerings are what <call_exported lowering="K"> calls). */
  const lsim_scenario *head;
  const lsimp_step_outcome *earlier;
  size_t num_earlier;
  /* Each value's aval by index, made on first need (lsim_scenario_value_aval
   * walks the equations: once per operand it made 100,000 platform_dependent
   * equations quadratic); NULL until then. */
  const lsim_aval **values;
  size_t num_values;
} lsimp_builder;

void lsimp_builder_free(lsimp_builder *b);

/* `n` zeroed items that live as long as the builder; NULL (and b->err set)
 * when out of memory. */
void *lsimp_build_alloc(lsimp_builder *b, size_t n, size_t size);

/* The scenario's own primitive named `name`: made on first use, the same
 * object for every equation that names it.  NULL when out of memory. */
lsim_primitive *lsimp_build_primitive(lsimp_builder *b, const char *name);

/* Turns the library's LSIM_E_INVALID_ARGUMENT in b->err into the file's
 * LSIM_E_INVALID_INPUT at `line`; returns what to return. */
int lsimp_build_invalid(lsimp_builder *b, int rc, int line);

/* The host callback a scenario runs with <execute/>: it returns a value
 * when the scenario says so (returns_value="true"). */
lsim_host_callback lsimp_build_host_callback(bool returns_value);

/* The avals of `e`'s operands (lsimp_build_alloc'd). */
lsim_aval *lsimp_build_operand_avals(lsimp_builder *b, const lsim_scenario_eqn *e);

/* --- the kinds (scenario_kind.c; each in scenario/kinds/) ------------------------ */

/* A program being rendered as Python (scenario/python.c): the callbacks'
 * shardings (made first, from jax.devices(), before anything is defined),
 * the other definitions before the function, and its body. */
typedef struct lsimp_python {
  lsimp_strbuf shardings;
  lsimp_strbuf defs;
  lsimp_strbuf body;
  const lsim_scenario *s;
  const lsim_jax_profile *jax;
  size_t eqn; /* the index of the equation rendered */
} lsimp_python;

/* `v[3], v[0]`: an equation's operands as the function's values. */
void lsimp_python_operands(lsimp_python *py, const lsim_scenario_eqn *e);
/* `jax.ShapeDtypeStruct((4,), jnp.dtype('float32'))` of an aval. */
void lsimp_python_struct(lsimp_strbuf *sb, const lsim_aval *aval);
/* `{0: 1, 2: 0}` as written (a repeated input: the dict keeps the last),
 * or `None` for none. */
void lsimp_python_aliases(lsimp_strbuf *sb, const lsim_io_alias *aliases, size_t n);
/* `(S, ...)`: a tuple of the equation's results' structs. */
void lsimp_python_result_structs(lsimp_strbuf *sb, const lsim_scenario_eqn *e);

struct lsim_scenario_kind {
  const char *element;             /* the scenario element */
  const char *summary;             /* what it means in JAX, one line (lowersim lower --help) */
  const lsim_primitive *primitive; /* what it binds; NULL: the equation names it */
  size_t params_size;              /* its params struct (scenario/kinds/kinds.h) */
  bool implies_result;             /* one result, the first operand's aval; fixed arity */
  unsigned weight;                 /* how often the fuzzer generates it */
  /* The element's attributes but args= and its children, into e->params
   * (zeroed, e->args read). */
  int (*read)(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e);
  /* Every attribute (args= included) and child. */
  void (*write)(lsimp_writer *wr, const lsim_scenario_eqn *e);
  /* The equation of the program: its primitive and typed params (with
   * rules registered for a scenario's own primitive); operands and results
   * are set. */
  int (*build)(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out);
  /* A deep copy of the params; false when out of memory (then `to` holds
   * only what clear frees). */
  bool (*copy)(void *to, const void *from);
  /* Frees what the params hold. */
  void (*clear)(void *params);
  /* Whether the kind can be generated from g's values (NULL: always); the
   * generator takes a pure_callback instead. */
  bool (*can_generate)(lsim_scenario_gen *g);
  /* A random equation of the kind (e->params zeroed). */
  void (*generate)(lsim_scenario_gen *g, lsim_scenario_eqn *e);
  /* The parts the minimizer may drop (NULL: none). */
  size_t (*num_parts)(const lsim_scenario_eqn *e);
  bool (*drop_part)(lsim_scenario_eqn *e, size_t i);
  /* The equation as JAX Python: what it defines before the function into
   * py->defs, its statement (`  v += [...]`, two spaces in) into py->body
   * (NULL: the kind has no rendering yet). */
  void (*python)(lsimp_python *py, const lsim_scenario_eqn *e);
};

/* Reads, writes, frees one equation, whatever its kind. */
int lsimp_read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e);
void lsimp_write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e);

/* Generated equations' helpers, shared by the kinds (scenario_generate.c). */
size_t lsimp_gen_value(lsim_scenario_gen *g);                 /* a value index */
size_t lsimp_gen_equal(lsim_scenario_gen *g, size_t v);      /* one with v's aval */
bool lsimp_gen_kernel_operand(lsim_scenario_gen *g, size_t *out); /* 1-D, non-empty, numeric */
void lsimp_gen_result_aval(lsim_scenario_gen *g, lsim_aval *a); /* often an existing one */
void lsimp_gen_operands(lsim_scenario_gen *g, lsim_scenario_eqn *e, size_t max);
void lsimp_gen_results(lsim_scenario_gen *g, lsim_scenario_eqn *e, size_t max);

#endif
