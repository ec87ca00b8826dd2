/* scenario/writer.c: an lsim_scenario as scenario XML, every attribute
 * written out (defaults included, except where an absent attribute means
 * something of its own, such as a backend's priority), so that reading the
 * output gives an equal scenario.  Each equation is written by its kind. */
#include "internal.h"
#include "support/raise.h"

#include <libxml/xmlwriter.h>

#include <errno.h>
#include <string.h>

static void empty_element(lsimp_writer *wr, const char *name) {
  lsimp_write_start(wr, name);
  lsimp_write_end(wr);
}

static void text_element(lsimp_writer *wr, const char *name, const char *text) {
  lsimp_write_start(wr, name);
  if (text)
    lsimp_write_text(wr, text);
  lsimp_write_end(wr);
}

/* --- The document -------------------------------------------------------- */
static void write_runtime(lsimp_writer *wr, const lsim_scenario_runtime *rt) {
  lsimp_write_start(wr, "runtime");
  lsimp_write_attr(wr, "jax_platforms", rt->jax_platforms);
  for (size_t i = 0; i < rt->num_backends; i++) {
    const lsim_scenario_backend *b = &rt->backends[i];
    lsimp_write_start(wr, "backend");
    lsimp_write_attr_required(wr, "platform", b->platform);
    lsimp_write_int(wr, "devices", b->devices);
    if (b->has_priority)
      lsimp_write_int(wr, "priority", b->priority);
    lsimp_write_attr(wr, "error", b->error);
    if (b->has_fail_quietly)
      lsimp_write_bool(wr, "fail_quietly", b->fail_quietly);
    lsimp_write_attr(wr, "device_kind", b->device_kind);
    lsimp_write_attr(wr, "compute_capability", b->compute_capability);
    lsimp_write_end(wr);
  }
  lsimp_write_end(wr);
}

/* use_mosaic_gpu only when the scenario sets it: a JAX without the option
 * refuses a scenario that does. */
static void write_pallas(lsimp_writer *wr, const lsim_pallas_installed *p, bool use_mosaic_gpu) {
  lsimp_write_start(wr, "pallas");
  lsimp_write_bool(wr, "mosaic_tpu", p->mosaic_tpu);
  lsimp_write_bool(wr, "triton", p->triton);
  lsimp_write_bool(wr, "mosaic_gpu", p->mosaic_gpu);
  if (use_mosaic_gpu)
    lsimp_write_bool(wr, "use_mosaic_gpu", p->use_mosaic_gpu);
  lsimp_write_end(wr);
}

static void write_lower(lsimp_writer *wr, const lsim_scenario *s) {
  lsimp_write_start(wr, "lower");
  lsimp_write_attr(wr, "function", s->function ? s->function : "f");
  lsimp_write_attr(wr, "platforms", s->platforms);
  lsimp_write_attr(wr, "backend", s->backend);
  if (s->devices)
    lsimp_write_int(wr, "devices", s->devices);
  if (s->keep_unused)
    lsimp_write_bool(wr, "keep_unused", true);
  if (s->has_enable_x64)
    lsimp_write_bool(wr, "enable_x64", s->enable_x64);
  if (s->for_export)
    lsimp_write_bool(wr, "export", true);
  lsimp_write_attr(wr, "disabled_checks", s->disabled_checks);
  if (s->has_abstract_device) {
    const lsim_abstract_device *d = &s->abstract_device;
    lsimp_write_start(wr, "abstract_device");
    lsimp_write_attr_required(wr, "platform", d->platform);
    lsimp_write_attr_required(wr, "device_kind", d->device_kind);
    if (d->num_cores)
      lsimp_write_int(wr, "num_cores", d->num_cores);
    lsimp_write_end(wr);
  }
  for (size_t i = 0; i < s->num_args; i++) {
    lsimp_write_start(wr, "arg");
    lsimp_write_aval(wr, &s->args[i].aval);
    lsimp_write_bool(wr, "donated", s->args[i].donated);
    lsimp_write_end(wr);
  }
  for (size_t i = 0; i < s->num_eqns; i++)
    lsimp_write_eqn(wr, &s->eqns[i]);
  if (s->has_return) {
    lsimp_write_start(wr, "return");
    lsimp_write_indices(wr, "values", s->returns, s->num_returns);
    lsimp_write_end(wr);
  }
  lsimp_write_end(wr);
}

static void write_expect(lsimp_writer *wr, const lsim_scenario_expect *x) {
  lsimp_write_start(wr, "expect");
  lsimp_write_attr(wr, "error", x->error);
  lsimp_write_attr(wr, "message", x->message);
  lsimp_write_bool(wr, "ok", x->ok);
  for (size_t i = 0; i < x->num_contains; i++)
    text_element(wr, "contains", x->contains[i]);
  for (size_t i = 0; i < x->num_absent; i++)
    text_element(wr, "absent", x->absent[i]);
  for (size_t i = 0; i < x->num_warnings; i++)
    text_element(wr, "warning", x->warnings[i]);
  lsimp_write_end(wr);
}

static void write_scenario(lsimp_writer *wr, const lsim_scenario *s) {
  wr->failed = wr->failed || xmlTextWriterStartDocument(wr->w, NULL, "UTF-8", NULL) < 0;
  lsimp_write_start(wr, "scenario");
  lsimp_write_attr_required(wr, "name", s->name);
  lsimp_write_attr(wr, "jax", s->jax);
  if (s->description)
    text_element(wr, "description", s->description);
  if (s->runtime.present)
    write_runtime(wr, &s->runtime);
  if (s->has_pallas)
    write_pallas(wr, &s->pallas, s->has_use_mosaic_gpu);
  for (const lsim_scenario *step = s; step; step = step->next) {
    write_lower(wr, step);
    if (step->execute)
      empty_element(wr, "execute");
    if (step->expect.present)
      write_expect(wr, &step->expect);
  }
  lsimp_write_end(wr);
  wr->failed = wr->failed || xmlTextWriterEndDocument(wr->w) < 0;
}

/* Serializes into `buf`; the scenario is checked as it goes. */
static int serialize(const lsim_scenario *s, xmlBufferPtr buf, lsim_error *err) {
  lsimp_writer wr = {.w = xmlNewTextWriterMemory(buf, 0), .err = err};
  if (!wr.w)
    return lsimp_fail_oom(err);
  wr.failed = xmlTextWriterSetIndent(wr.w, 1) < 0 ||
              xmlTextWriterSetIndentString(wr.w, BAD_CAST "  ") < 0;
  write_scenario(&wr, s);
  xmlFreeTextWriter(wr.w); /* flushes into buf */
  if (wr.rc)
    return wr.rc;
  return wr.failed ? lsimp_fail_oom(err) : LSIM_OK;
}

int lsim_scenario_write(const lsim_scenario *s, FILE *out, lsim_error *err) {
  if (!s || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_write: NULL argument");
  lsimp_xml_init();
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
