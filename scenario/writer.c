/* scenario/writer.c: an lsim_scenario as scenario XML, every attribute
 * written out (defaults included, except where an absent attribute means
 * something of its own, such as a backend's priority), so that reading the
 * output gives an equal scenario. */
#include "internal.h"
#include "support/raise.h"

#include <libxml/chvalid.h>
#include <libxml/xmlwriter.h>

#include <errno.h>
#include <string.h>

#define MAX_DEPTH 8 /* scenario > lower > primitive > result */

typedef struct writer {
  xmlTextWriterPtr w;
  const char *open[MAX_DEPTH]; /* the elements being written, for messages */
  int depth;
  bool failed; /* a libxml2 call failed (out of memory) */
  lsim_error *err;
  int rc; /* the first problem with the scenario itself */
} writer;

static void invalid(writer *wr, const char *what, const char *name) {
  if (!wr->rc)
    wr->rc =
        lsim_error_set(wr->err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_write: <%s> %s%s",
                  wr->depth > 0 && wr->depth <= MAX_DEPTH ? wr->open[wr->depth - 1] : "scenario",
                  what, name ? name : "");
}

static void check(writer *wr, int libxml_rc) {
  if (libxml_rc < 0)
    wr->failed = true;
}

/* XML 1.0 can carry the text: UTF-8 of characters XML allows. */
static bool is_xml_text(const char *text) {
  const unsigned char *p = (const unsigned char *)text;
  int left = (int)strlen(text);
  while (left > 0) {
    int len = left;
    int c = xmlGetUTF8Char(p, &len);
    if (c < 0 || !xmlIsCharQ(c))
      return false;
    p += len;
    left -= len;
  }
  return true;
}

static bool text_ok(writer *wr, const char *name, const char *text) {
  if (is_xml_text(text))
    return true;
  invalid(wr, "has text that is not UTF-8 XML can carry (control characters?) in ", name);
  return false;
}

static void start(writer *wr, const char *name) {
  if (wr->depth < MAX_DEPTH)
    wr->open[wr->depth] = name;
  wr->depth++;
  check(wr, xmlTextWriterStartElement(wr->w, BAD_CAST name));
}

static void end(writer *wr) {
  wr->depth--;
  check(wr, xmlTextWriterEndElement(wr->w));
}

static void empty_element(writer *wr, const char *name) {
  start(wr, name);
  end(wr);
}

/* An optional attribute: nothing is written for NULL. */
static void attr(writer *wr, const char *name, const char *value) {
  if (value && text_ok(wr, name, value))
    check(wr, xmlTextWriterWriteAttribute(wr->w, BAD_CAST name, BAD_CAST value));
}

/* A required attribute (NULL: an invalid enum value or a missing string). */
static void attr_required(writer *wr, const char *name, const char *value) {
  if (!value)
    invalid(wr, "has no valid ", name);
  else
    attr(wr, name, value);
}

static void attr_bool(writer *wr, const char *name, bool value) {
  attr(wr, name, value ? "true" : "false");
}

static void attr_int(writer *wr, const char *name, long long value) {
  check(wr, xmlTextWriterWriteFormatAttribute(wr->w, BAD_CAST name, "%lld", value));
}

static void attr_indices(writer *wr, const char *name, const size_t *indices, size_t n) {
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  for (size_t i = 0; i < n; i++)
    lsimp_strbuf_printf(&text, i ? ",%zu" : "%zu", indices[i]);
  if (lsimp_strbuf_failed(&text))
    wr->failed = true;
  else
    attr(wr, name, lsimp_strbuf_cstr(&text));
  lsimp_strbuf_free(&text);
}

static void attr_aval(writer *wr, const lsim_aval *aval) {
  attr_required(wr, "dtype", lsim_dtype_name(aval->dtype));
  if (aval->rank < 0 || aval->rank > LSIM_MAX_RANK) {
    invalid(wr, "has a rank outside [0, LSIM_MAX_RANK]", NULL);
    return;
  }
  lsimp_strbuf shape = LSIMP_STRBUF_INIT;
  for (int i = 0; i < aval->rank; i++)
    lsimp_strbuf_printf(&shape, i ? ",%lld" : "%lld", (long long)aval->dims[i]);
  if (lsimp_strbuf_failed(&shape))
    wr->failed = true;
  else
    attr(wr, "shape", lsimp_strbuf_cstr(&shape));
  lsimp_strbuf_free(&shape);
}

static void text_element(writer *wr, const char *name, const char *text) {
  start(wr, name);
  if (text && text_ok(wr, "text", text))
    check(wr, xmlTextWriterWriteString(wr->w, BAD_CAST text));
  end(wr);
}

/* --- Equations ----------------------------------------------------------- */

static void write_results(writer *wr, const lsim_scenario_eqn *e) {
  for (size_t i = 0; i < e->num_results; i++) {
    start(wr, "result");
    attr_aval(wr, &e->results[i]);
    end(wr);
  }
}

static void write_op(writer *wr, const lsim_scenario_eqn *e) {
  attr_required(wr, "kind", lsim_op_kind_name(e->op));
  attr_indices(wr, "args", e->args, e->num_args);
}

/* The schema wants <rule>s, then at most one <default> (platform NULL). */
static void write_primitive(writer *wr, const lsim_scenario_eqn *e) {
  attr_required(wr, "name", e->name);
  attr_indices(wr, "args", e->args, e->num_args);
  attr_required(wr, "backend_access", lsim_backend_access_name(e->backend_access));
  size_t defaults = 0;
  for (size_t i = 0; i < e->num_rules; i++) {
    if (!e->rules[i].platform) {
      defaults++;
      continue;
    }
    start(wr, "rule");
    attr(wr, "platform", e->rules[i].platform);
    attr_required(wr, "target", e->rules[i].target);
    end(wr);
  }
  for (size_t i = 0; i < e->num_rules; i++) {
    if (!e->rules[i].platform) {
      start(wr, "default");
      attr_required(wr, "target", e->rules[i].target);
      end(wr);
    }
  }
  if (defaults > 1)
    invalid(wr, "has more than one <default> rule", NULL);
  write_results(wr, e);
}

static void write_platform_dependent(writer *wr, const lsim_scenario_eqn *e) {
  attr_indices(wr, "args", e->args, e->num_args);
  for (size_t i = 0; i < e->num_branches; i++) {
    const lsim_scenario_branch *b = &e->branches[i];
    bool is_default = !b->platforms;
    if (is_default && i + 1 != e->num_branches) {
      invalid(wr, "has a <default> branch that is not the last one", NULL);
      return;
    }
    start(wr, is_default ? "default" : "branch");
    attr(wr, "platforms", b->platforms);
    attr_required(wr, "op", lsim_op_kind_name(b->op));
    end(wr);
  }
}

static void write_buffer_callback(writer *wr, const lsim_scenario_eqn *e) {
  attr_indices(wr, "args", e->args, e->num_args);
  attr_bool(wr, "side_effect", e->side_effect);
  attr_bool(wr, "command_buffer", e->command_buffer);
  attr_bool(wr, "returns_value", e->returns_value);
  write_results(wr, e);
  for (size_t i = 0; i < e->num_aliases; i++) {
    start(wr, "alias");
    attr_int(wr, "input", e->aliases[i].input);
    attr_int(wr, "output", e->aliases[i].output);
    end(wr);
  }
}

static void write_pure_callback(writer *wr, const lsim_scenario_eqn *e) {
  attr_indices(wr, "args", e->args, e->num_args);
  write_results(wr, e);
}

static void write_io_callback(writer *wr, const lsim_scenario_eqn *e) {
  attr_indices(wr, "args", e->args, e->num_args);
  attr_bool(wr, "ordered", e->ordered);
  write_results(wr, e);
}

static void write_debug_callback(writer *wr, const lsim_scenario_eqn *e) {
  attr_indices(wr, "args", e->args, e->num_args);
  attr_bool(wr, "ordered", e->ordered);
  attr_bool(wr, "partitioned", e->partitioned);
}

static void write_pallas_call(writer *wr, const lsim_scenario_eqn *e) {
  attr_indices(wr, "args", e->args, e->num_args);
  attr_required(wr, "kernel", e->kernel);
  attr_int(wr, "grid", (long long)e->grid);
  attr_bool(wr, "interpret", e->interpret);
  attr_required(wr, "compiler_params", lsim_compiler_params_name(e->compiler_params));
  attr_bool(wr, "constants", e->has_constants);
  write_results(wr, e);
}

typedef void (*eqn_writer)(writer *wr, const lsim_scenario_eqn *e);

static const eqn_writer eqn_writers[] = {
    [LSIM_EQN_OP] = write_op,
    [LSIM_EQN_PRIMITIVE] = write_primitive,
    [LSIM_EQN_PLATFORM_DEPENDENT] = write_platform_dependent,
    [LSIM_EQN_BUFFER_CALLBACK] = write_buffer_callback,
    [LSIM_EQN_PURE_CALLBACK] = write_pure_callback,
    [LSIM_EQN_IO_CALLBACK] = write_io_callback,
    [LSIM_EQN_DEBUG_CALLBACK] = write_debug_callback,
    [LSIM_EQN_PALLAS_CALL] = write_pallas_call,
};

static void write_eqn(writer *wr, const lsim_scenario_eqn *e) {
  const char *name = lsim_scenario_eqn_kind_name(e->kind);
  if (!name) {
    invalid(wr, "has an equation of an invalid kind", NULL);
    return;
  }
  start(wr, name);
  eqn_writers[e->kind](wr, e);
  end(wr);
}

/* --- The document -------------------------------------------------------- */

static void write_runtime(writer *wr, const lsim_scenario_runtime *rt) {
  start(wr, "runtime");
  attr(wr, "jax_platforms", rt->jax_platforms);
  for (size_t i = 0; i < rt->num_backends; i++) {
    const lsim_scenario_backend *b = &rt->backends[i];
    start(wr, "backend");
    attr_required(wr, "platform", b->platform);
    attr_int(wr, "devices", b->devices);
    if (b->has_priority)
      attr_int(wr, "priority", b->priority);
    attr(wr, "error", b->error);
    if (b->has_fail_quietly)
      attr_bool(wr, "fail_quietly", b->fail_quietly);
    end(wr);
  }
  end(wr);
}

static void write_pallas(writer *wr, const lsim_scenario_pallas *p) {
  start(wr, "pallas");
  attr_bool(wr, "mosaic_tpu", p->mosaic_tpu);
  attr_bool(wr, "triton", p->triton);
  attr_bool(wr, "mosaic_gpu", p->mosaic_gpu);
  attr_bool(wr, "use_mosaic_gpu", p->use_mosaic_gpu);
  end(wr);
}

static void write_lower(writer *wr, const lsim_scenario *s) {
  start(wr, "lower");
  attr(wr, "function", s->function ? s->function : "f");
  attr(wr, "platforms", s->platforms);
  attr(wr, "backend", s->backend);
  for (size_t i = 0; i < s->num_args; i++) {
    start(wr, "arg");
    attr_aval(wr, &s->args[i].aval);
    attr_bool(wr, "donated", s->args[i].donated);
    end(wr);
  }
  for (size_t i = 0; i < s->num_eqns; i++)
    write_eqn(wr, &s->eqns[i]);
  if (s->has_return) {
    start(wr, "return");
    attr_indices(wr, "values", s->returns, s->num_returns);
    end(wr);
  }
  end(wr);
}

static void write_expect(writer *wr, const lsim_scenario_expect *x) {
  start(wr, "expect");
  attr(wr, "error", x->error);
  attr(wr, "message", x->message);
  attr_bool(wr, "ok", x->ok);
  for (size_t i = 0; i < x->num_contains; i++)
    text_element(wr, "contains", x->contains[i]);
  for (size_t i = 0; i < x->num_absent; i++)
    text_element(wr, "absent", x->absent[i]);
  end(wr);
}

static void write_scenario(writer *wr, const lsim_scenario *s) {
  check(wr, xmlTextWriterStartDocument(wr->w, NULL, "UTF-8", NULL));
  start(wr, "scenario");
  attr_required(wr, "name", s->name);
  if (s->description)
    text_element(wr, "description", s->description);
  if (s->runtime.present)
    write_runtime(wr, &s->runtime);
  if (s->has_pallas)
    write_pallas(wr, &s->pallas);
  write_lower(wr, s);
  if (s->execute)
    empty_element(wr, "execute");
  if (s->expect.present)
    write_expect(wr, &s->expect);
  end(wr);
  check(wr, xmlTextWriterEndDocument(wr->w));
}

/* Serializes into `buf`; the scenario is checked as it goes. */
static int serialize(const lsim_scenario *s, xmlBufferPtr buf, lsim_error *err) {
  writer wr = {.w = xmlNewTextWriterMemory(buf, 0), .err = err};
  if (!wr.w)
    return lsimp_fail_oom(err);
  check(&wr, xmlTextWriterSetIndent(wr.w, 1));
  check(&wr, xmlTextWriterSetIndentString(wr.w, BAD_CAST "  "));
  write_scenario(&wr, s);
  xmlFreeTextWriter(wr.w); /* flushes into buf */
  if (wr.rc)
    return wr.rc;
  return wr.failed ? lsimp_fail_oom(err) : LSIM_OK;
}

int lsim_scenario_write(const lsim_scenario *s, FILE *out, lsim_error *err) {
  if (!s || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_write: NULL argument");
  xmlBufferPtr buf = xmlBufferCreate();
  if (!buf)
    return lsimp_fail_oom(err);
  int rc = serialize(s, buf, err);
  if (!rc) {
    size_t len = (size_t)xmlBufferLength(buf);
    errno = 0;
    if (fwrite(xmlBufferContent(buf), 1, len, out) != len || fputc('\n', out) == EOF ||
        fflush(out) != 0)
      rc = lsim_error_set(err, LSIM_E_IO, "writing the scenario failed: %s",
                     strerror(errno ? errno : EIO));
  }
  xmlBufferFree(buf);
  return rc;
}
