/* cli/explain_html.c: `lowersim explain --html`: the narration and the
 * module as one page.  Every narrated line is an item `n-I` (I its place in
 * the narration, SOURCE lines counted); the module context says which step
 * line made each op (lsim_module_context_explain_op_line), and the module's
 * printed lines that start an op, taken in the order a pre-order walk visits
 * the ops, become links `op-K` to that step, each step listing its ops.  The
 * dispatch diagrams are drawn from the narration's "kept rule K: ... for
 * PLATFORMS" decisions and the module's lowering platforms. */
#include "explain_html.h"
#include "pretty.h"

#include "lowersim/alloc.h"
#include "lowersim/error.h"
#include "lowersim/jax_profile.h"
#include "lowersim/lowering.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* --- the narration as it came -------------------------------------------- */

void explain_record_line(void *data, lsim_explain_kind kind, int depth, const char *text) {
  explain_record *r = data;
  if (r->failed)
    return;
  char *copy = lsim_strdup(text ? text : "");
  if (!copy || !lsim_grow_array(&r->lines, &r->cap, r->count + 1, sizeof *r->lines)) {
    free(copy);
    r->failed = true;
    return;
  }
  r->lines[r->count++] = (explain_line){kind, depth, copy};
}

void explain_record_free(explain_record *r) {
  for (size_t i = 0; i < r->count; i++)
    free(r->lines[i].text);
  free(r->lines);
  *r = (explain_record){0};
}

/* --- helpers -------------------------------------------------------------- */

static void esc_n(FILE *f, const char *s, size_t n) {
  for (size_t i = 0; i < n && s[i]; i++) {
    switch (s[i]) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(s[i], f);
    }
  }
}

static void esc(FILE *f, const char *s) { esc_n(f, s, s ? strlen(s) : 0); }

/* "FILE FUNCTION" of a SOURCE line: FILE's length, 0 when malformed. */
static size_t source_split(const char *text) {
  const char *sp = strchr(text, ' ');
  return sp && sp[1] ? (size_t)(sp - text) : 0;
}

/* --- the ops of the module ------------------------------------------------ */

typedef struct op_list {
  long *step_lines; /* per op, in pre-order: the narration line of its step, or -1 */
  MlirOperation *ops; /* per op, in pre-order (for its name) */
  size_t ops_cap;
  size_t count, cap;
  const lsim_module_context *mc;
  long offset; /* the module context's first line in the narration */
  bool failed;
} op_list;

static MlirWalkResult collect_op(MlirOperation op, void *data) {
  op_list *l = data;
  if (!lsim_grow_array(&l->step_lines, &l->cap, l->count + 1, sizeof *l->step_lines) ||
      !lsim_grow_array(&l->ops, &l->ops_cap, l->count + 1, sizeof *l->ops)) {
    l->failed = true;
    return MlirWalkResultInterrupt;
  }
  long line = lsim_module_context_explain_op_line(l->mc, op);
  l->ops[l->count] = op;
  l->step_lines[l->count++] = line < 0 ? -1 : line + l->offset;
  return MlirWalkResultAdvance;
}

/* Whether a printed line of the module starts an op: `%0 = ...`,
 * `"dialect.op"(...)`, `dialect.op ...`, `module ...`, `return ...`; not
 * `}`, `})`, `}, {`, `^bb0(...)` or an op's trailing `}) : (...) -> ...`. */
static bool starts_op(const char *line, size_t n) {
  size_t i = 0;
  while (i < n && line[i] == ' ')
    i++;
  if (i == n)
    return false;
  char c = line[i];
  if (c == '%' || c == '"')
    return true;
  if (!islower((unsigned char)c) && c != '_')
    return false;
  size_t j = i;
  while (j < n && (isalnum((unsigned char)line[j]) || line[j] == '_' || line[j] == '.' ||
                   line[j] == '$'))
    j++;
  if (j < n && line[j] != ' ')
    return false;
  size_t len = j - i;
  return memchr(line + i, '.', len) || (len == 6 && strncmp(line + i, "module", 6) == 0) ||
         (len == 6 && strncmp(line + i, "return", 6) == 0);
}

/* --- the dispatch diagrams ------------------------------------------------ */

#define MAX_NAMES 32

typedef struct names {
  char items[MAX_NAMES][64];
  size_t count;
} names;

/* The quoted names of "('cpu', 'cuda')". */
static void parse_tuple(const char *s, names *out) {
  out->count = 0;
  while (out->count < MAX_NAMES && (s = strchr(s, '\''))) {
    const char *end = strchr(++s, '\'');
    if (!end)
      break;
    size_t n = (size_t)(end - s) < 63 ? (size_t)(end - s) : 63;
    memcpy(out->items[out->count], s, n);
    out->items[out->count++][n] = '\0';
    s = end + 1;
  }
}

/* "cpu, cuda" */
static void parse_list(const char *s, names *out) {
  out->count = 0;
  while (*s && out->count < MAX_NAMES) {
    const char *end = strstr(s, ", ");
    size_t n = end ? (size_t)(end - s) : strlen(s);
    size_t m = n < 63 ? n : 63;
    memcpy(out->items[out->count], s, m);
    out->items[out->count++][m] = '\0';
    s += n + (end ? 2 : 0);
  }
}

static bool names_have(const names *l, const char *name) {
  for (size_t i = 0; i < l->count; i++)
    if (strcmp(l->items[i], name) == 0)
      return true;
  return false;
}

/* A "kept rule K: WHAT for PLATFORMS" decision: K, WHAT's length and where
 * PLATFORMS start; false for any other line. */
static bool kept_rule(const explain_line *l, size_t *k, const char **what, size_t *what_len,
                      const char **platforms) {
  if (l->kind != LSIM_EXPLAIN_DECISION || strncmp(l->text, "kept rule ", 10) != 0)
    return false;
  char *end;
  unsigned long v = strtoul(l->text + 10, &end, 10);
  const char *sep = strstr(end, " for ");
  if (end == l->text + 10 || strncmp(end, ": ", 2) != 0 || !sep)
    return false;
  *k = v;
  *what = end + 2;
  *what_len = (size_t)(sep - *what);
  *platforms = sep + 5;
  return true;
}

/* The SVG of the dispatch whose kept-rule lines are lines[first..last]. */
static void draw_dispatch(FILE *f, const explain_line *lines, size_t first, size_t last,
                          const names *platforms, size_t index) {
  size_t rules = last - first + 1;
  size_t rows = platforms->count > rules ? platforms->count : rules;
  int row = 30, top = 44, h = top + (int)rows * row + 10;
  fprintf(f,
          "<figure class=\"dispatch\" id=\"dispatch-%zu\"><svg class=\"case-diagram\" "
          "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 640 %d\" "
          "preserveAspectRatio=\"xMinYMin meet\" role=\"img\" "
          "aria-label=\"stablehlo.case dispatch: platform index to rule index to kept rule\">\n",
          index, h);
  fputs("<text x=\"10\" y=\"16\" class=\"hd\">platform index</text>"
        "<text x=\"210\" y=\"16\" class=\"hd\">rule index</text>"
        "<text x=\"330\" y=\"16\" class=\"hd\">kept rules (ctx.platforms)</text>\n",
        f);
  for (size_t i = 0; i < platforms->count; i++) {
    int y = top + (int)i * row;
    fprintf(f,
            "<g class=\"platform\"><rect x=\"10\" y=\"%d\" width=\"130\" height=\"22\" rx=\"4\"/>"
            "<text x=\"18\" y=\"%d\">%zu: ",
            y - 15, y, i);
    esc(f, platforms->items[i]);
    fputs("</text></g>\n", f);
  }
  for (size_t r = 0; r < rules; r++) {
    size_t k, what_len;
    const char *what, *plats;
    if (!kept_rule(&lines[first + r], &k, &what, &what_len, &plats))
      continue;
    names sharing;
    parse_list(plats, &sharing);
    int y = top + (int)r * row;
    fprintf(f,
            "<g class=\"rule\"><rect x=\"210\" y=\"%d\" width=\"70\" height=\"22\" rx=\"4\"/>"
            "<text x=\"218\" y=\"%d\">%zu</text></g>\n"
            "<line class=\"edge\" x1=\"280\" y1=\"%d\" x2=\"330\" y2=\"%d\"/>\n"
            "<g class=\"kept\"><a href=\"#n-%zu\" aria-label=\"kept rule %zu, ",
            y - 15, y, k, y - 4, y - 4, first + r, k);
    esc_n(f, what, what_len);
    fputs(" for ", f);
    esc(f, plats);
    fprintf(f, ": its narration step\"><rect x=\"330\" y=\"%d\" width=\"300\" "
            "height=\"22\" rx=\"4\"/><text x=\"338\" y=\"%d\">rule %zu: ",
            y - 15, y, k);
    esc_n(f, what, what_len);
    fputs(" (", f);
    esc(f, plats);
    fputs(")</text></a></g>\n", f);
    for (size_t i = 0; i < platforms->count; i++)
      if (names_have(&sharing, platforms->items[i]))
        fprintf(f, "<line class=\"edge\" x1=\"140\" y1=\"%d\" x2=\"210\" y2=\"%d\"/>\n",
                top + (int)i * row - 4, y - 4);
  }
  fputs("</svg><figcaption>stablehlo.case on the platform index picks the rule index, then "
        "stablehlo.case over the kept rules (lower_per_platform)</figcaption></figure>\n",
        f);
}

/* --- the page ------------------------------------------------------------- */

/* The facts around the narration, as the terminal gives them: a table per
 * section (request, runtime, module context), each row KEY VALUE [NOTE]. */
static void write_facts(FILE *f, const explain_facts *facts) {
  const explain_section *sections[] = {&facts->request, &facts->runtime, &facts->context};
  fputs("<div class=\"facts\">\n", f);
  for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
    const explain_section *sec = sections[i];
    if (!sec->count)
      continue;
    fprintf(f, "<section class=\"facts-section\" id=\"%s\"><h2>", sec->id);
    esc(f, sec->title);
    fputs("</h2><table>\n", f);
    for (size_t r = 0; r < sec->count; r++) {
      const explain_row *row = &sec->rows[r];
      fputs(row->tone == EXPLAIN_TONE_WARN ? "<tr class=\"warn\">" : "<tr>", f);
      fputs("<th scope=\"row\">", f);
      esc(f, row->key);
      fputs("</th><td>", f);
      esc(f, row->value);
      if (row->note) {
        fputs("<span class=\"note\">", f);
        esc(f, row->note);
        fputs("</span>", f);
      }
      fputs("</td></tr>\n", f);
    }
    fputs("</table></section>\n", f);
  }
  fputs("</div>\n", f);
}

static const char css[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2230;background:#fafafa}"
    "header{padding:12px 20px;background:#24304a;color:#fff}header h1{font-size:18px;margin:0;overflow-wrap:anywhere}"
    "header p{margin:4px 0;overflow-wrap:anywhere}header a{color:#cfe0ff}"
    ".outcome{display:inline-block;padding:2px 8px;border-radius:4px;font-weight:600}"
    ".outcome.ok{background:#2f7d43;color:#fff}.outcome.error{background:#b3261e;color:#fff}"
    "details{margin:10px 20px}pre{font:12px/1.4 ui-monospace,monospace;margin:0}"
    "#scenario,#python,#jaxpr{background:#fff;border:1px solid #ddd;padding:8px;overflow-y:auto;max-height:240px;"
    "white-space:pre-wrap;overflow-wrap:anywhere}"
    ".facts{display:flex;flex-wrap:wrap;gap:12px;padding:0 20px 12px}"
    ".facts-section{flex:1 1 300px;min-width:0;background:#fff;border:1px solid #ddd;padding:8px}"
    ".facts table{border-collapse:collapse;width:100%;table-layout:fixed}"
    ".facts th{text-align:left;font-weight:600;width:10.5em;vertical-align:top;"
    "padding:1px 8px 1px 0;white-space:nowrap}"
    ".facts td{font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere;"
    "padding:1px 0}"
    ".facts .note{color:#2f7d43;font-weight:600}.facts tr.warn th,.facts tr.warn td{color:#8a5a00}"
    "main{display:flex;gap:12px;padding:0 20px 20px}"
    "@media (max-width:900px){main{flex-direction:column}}"
    "main>section{flex:1;min-width:0;background:#fff;border:1px solid #ddd;padding:8px;"
    "overflow-y:auto;max-height:88vh}h2{font-size:15px;margin:4px 0 8px}"
    "ol.narration{list-style:none;margin:0;padding:0}"
    ".line{padding:1px 4px;border-left:3px solid transparent;white-space:pre-wrap;"
    "overflow-wrap:anywhere}"
    "#module{white-space:pre-wrap;overflow-wrap:anywhere}"
    ".step{font-weight:600}.detail{color:#555}.decision{color:#0b6e8a}.alloc{color:#8a5a00}"
    "p.form{font-size:12px;color:#555;margin:0 0 6px}"
    ".error{color:#b3261e;font-weight:600}.text{color:#666;font-family:ui-monospace,monospace;"
    "font-size:12px}"
    "a.src{font-weight:400;font-size:12px;margin-left:8px;color:#4a5fc1}"
    "a.to-op{font-weight:400;font-size:11px;margin-left:4px;color:#8a5a00}"
    "a.op{color:inherit;text-decoration:none;display:inline-block;max-width:100%}"
    "a.op:hover,.hl{background:#fff3c4}:target{background:#ffe28a;border-left-color:#e0a800}"
    "figure.dispatch{margin:6px 0 8px 0;max-width:640px}figcaption{font-size:12px;color:#555}"
    "svg.case-diagram{display:block;width:100%;height:auto}"
    "svg rect{fill:#eef2fb;stroke:#4a5fc1}svg .rule rect{fill:#fdf3e1;stroke:#b07d1a}"
    "svg .kept rect{fill:#e8f5ec;stroke:#2f7d43}svg text{font:12px ui-monospace,monospace}"
    "svg text.hd{font:600 12px system-ui,sans-serif}svg .edge{stroke:#666;stroke-width:1.2}";

/* Hovering an op lights its step and the step's other ops; hovering a step
 * lights its ops.  Then the body records how many in-page links there are
 * and how many resolve to nothing (data-links, data-unresolved: what the
 * browser test reads back from the DOM). */
static const char js[] =
    "(function(){function lit(ids,on){ids.forEach(function(id){var e=document.getElementById(id);"
    "if(e)e.classList.toggle('hl',on);});}"
    "document.querySelectorAll('a.op').forEach(function(a){var s=a.getAttribute('href').slice(1);"
    "var ids=[s].concat((document.getElementById(s).dataset.ops||'').split(' ').filter(Boolean));"
    "a.addEventListener('mouseenter',function(){lit(ids,true);});"
    "a.addEventListener('mouseleave',function(){lit(ids,false);});});"
    "document.querySelectorAll('li.step[data-ops]').forEach(function(li){"
    "var ids=li.dataset.ops.split(' ').filter(Boolean);"
    "li.addEventListener('mouseenter',function(){lit(ids,true);});"
    "li.addEventListener('mouseleave',function(){lit(ids,false);});});"
    "var links=document.querySelectorAll('a[href^=\"#\"]'),lost=0;"
    "links.forEach(function(a){if(!document.getElementById(a.getAttribute('href').slice(1)))"
    "lost++;});document.body.dataset.links=links.length;document.body.dataset.unresolved=lost;"
    "})();";

static const char *const kind_class[] = {
    [LSIM_EXPLAIN_STEP] = "step",   [LSIM_EXPLAIN_DETAIL] = "detail",
    [LSIM_EXPLAIN_DECISION] = "decision", [LSIM_EXPLAIN_ALLOC] = "alloc",
    [LSIM_EXPLAIN_ERROR] = "error", [LSIM_EXPLAIN_TEXT] = "text",
    [LSIM_EXPLAIN_SOURCE] = "source"};

static void write_source_link(FILE *f, const lsim_jax_profile *profile, const char *source) {
  size_t n = source_split(source);
  if (!n)
    return;
  char file[256], url[512];
  snprintf(file, sizeof file, "%.*s", (int)n, source);
  const char *function = source + n + 1;
  lsim_jax_source_url(profile, file, function, url, sizeof url);
  int line = lsim_jax_source_line(profile, file, function);
  const char *base = strrchr(file, '/');
  fputs("<a class=\"src\" href=\"", f);
  esc(f, url);
  fputs("\" title=\"", f);
  esc(f, file);
  fputs("\">", f);
  esc(f, function);
  if (line)
    fprintf(f, " · %s:%d</a>", base ? base + 1 : file, line);
  else /* a function the table places in its file only */
    fprintf(f, " · %s</a>", base ? base + 1 : file);
}

/* The linked ops of each narration line, grouped by line (a counting
 * sort): line I's are order[start[I] .. start[I + 1]). */
typedef struct step_ops {
  size_t *start; /* narration->count + 1 */
  size_t *order;
} step_ops;

static bool group_ops(const op_list *ops, const bool *linked, size_t lines, step_ops *out) {
  out->start = lsim_calloc(lines + 2, sizeof *out->start);
  out->order = lsim_malloc_array(ops->count ? ops->count : 1, sizeof *out->order);
  if (!out->start || !out->order)
    return false;
  for (size_t k = 0; k < ops->count; k++)
    if (linked && linked[k] && (size_t)ops->step_lines[k] < lines)
      out->start[ops->step_lines[k] + 2]++;
  for (size_t i = 2; i < lines + 2; i++)
    out->start[i] += out->start[i - 1];
  for (size_t k = 0; k < ops->count; k++)
    if (linked && linked[k] && (size_t)ops->step_lines[k] < lines)
      out->order[out->start[ops->step_lines[k] + 1]++] = k;
  return true;
}

/* An op's accessible name: "op K of the module: stablehlo.case". */
static void write_op_label(FILE *f, const op_list *ops, size_t k) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(ops->ops[k]));
  fprintf(f, "op %zu of the module: ", k);
  esc_n(f, name.data, name.length);
}

static void write_narration(FILE *f, const explain_page *p, const op_list *ops,
                            const step_ops *by_line) {
  const explain_record *r = p->narration;
  names platforms = {.count = 0};
  size_t dispatches = 0;
  fputs("<section id=\"narration-pane\"><h2>Narration</h2><ol class=\"narration\">\n", f);
  const char *source = NULL;
  for (size_t i = 0; i < r->count; i++) {
    const explain_line *l = &r->lines[i];
    if (l->kind == LSIM_EXPLAIN_SOURCE) {
      source = l->text;
      continue;
    }
    if (l->kind == LSIM_EXPLAIN_STEP &&
        strncmp(l->text, "lowering platforms (canonicalized): ", 36) == 0)
      parse_tuple(l->text + 36, &platforms);
    fprintf(f, "<li class=\"line %s\" id=\"n-%zu\" style=\"margin-left:%dem\"",
            kind_class[l->kind], i, l->depth * 2);
    size_t from = by_line->start[i], to = by_line->start[i + 1];
    for (size_t j = from; j < to; j++)
      fprintf(f, "%sop-%zu", j > from ? " " : " data-ops=\"", by_line->order[j]);
    if (to > from)
      fputc('"', f);
    fputc('>', f);
    esc(f, l->text);
    if (source)
      write_source_link(f, p->profile, source);
    source = NULL;
    for (size_t j = from; j < to; j++) {
      fprintf(f, "<a class=\"to-op\" href=\"#op-%zu\" aria-label=\"", by_line->order[j]);
      write_op_label(f, ops, by_line->order[j]);
      fprintf(f, "\">op %zu</a>", by_line->order[j]);
    }
    fputs("</li>\n", f);
    /* The last of a run of kept-rule decisions: its dispatch. */
    size_t k, what_len;
    const char *what, *plats;
    if (kept_rule(l, &k, &what, &what_len, &plats) &&
        !(i + 1 < r->count && kept_rule(&r->lines[i + 1], &k, &what, &what_len, &plats))) {
      size_t first = i;
      while (first > 0 && kept_rule(&r->lines[first - 1], &k, &what, &what_len, &plats))
        first--;
      fprintf(f, "<li class=\"figure\" style=\"margin-left:%dem\">", l->depth * 2);
      draw_dispatch(f, r->lines, first, i, &platforms, dispatches++);
      fputs("</li>\n", f);
    }
  }
  fputs("</ol></section>\n", f);
}

/* The module's lines, those that start an op linked to its step when the
 * ops and the lines agree in number (else none is, and the page says so). */
static bool write_module(FILE *f, const char *text, const op_list *ops, const char *form,
                         bool **linked_out) {
  fputs("<section id=\"module-pane\"><h2>Module</h2>\n", f);
  if (text) {
    fputs("<p class=\"form\" id=\"module-form\">", f);
    esc(f, form);
    fputs("</p>\n", f);
  }
  if (!text) {
    fputs("<p class=\"error\">No module: the lowering raised (see the outcome).</p></section>\n",
          f);
    return true;
  }
  size_t op_lines = 0;
  for (const char *s = text; *s;) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    op_lines += starts_op(s, n);
    s += n + (nl ? 1 : 0);
  }
  bool agree = !ops->failed && op_lines == ops->count;
  bool *linked = agree ? lsim_calloc(ops->count ? ops->count : 1, sizeof *linked) : NULL;
  if (agree && !linked)
    return false;
  if (!agree)
    fprintf(f, "<p class=\"error\">The module's %zu op lines and its %zu ops do not agree: "
               "the ops are not linked.</p>\n",
            op_lines, ops->count);
  fputs("<pre id=\"module\">", f);
  size_t k = 0;
  for (const char *s = text; *s;) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    if (agree && starts_op(s, n)) {
      if (ops->step_lines[k] >= 0) {
        linked[k] = true;
        fprintf(f, "<a class=\"op\" id=\"op-%zu\" href=\"#n-%ld\" aria-label=\"", k,
                ops->step_lines[k]);
        write_op_label(f, ops, k);
        fputs(", made by its narration step\">", f);
        esc_n(f, s, n);
        fputs("</a>", f);
      } else {
        fprintf(f, "<span class=\"op unlinked\" id=\"op-%zu\">", k);
        esc_n(f, s, n);
        fputs("</span>", f);
      }
      k++;
    } else {
      esc_n(f, s, n);
    }
    fputc('\n', f);
    s += n + (nl ? 1 : 0);
  }
  fputs("</pre></section>\n", f);
  *linked_out = linked;
  return true;
}

bool explain_html_write(FILE *f, const explain_page *p) {
  const lsim_jax_profile *jax = lsim_jax_profile_or_default(p->profile);
  const lsim_lowering *lowering = p->outcome ? p->outcome->lowering : NULL;
  char refused[128] = "";
  char *module =
      lowering && !p->code ? cli_module_text(lowering, p->generic, refused, sizeof refused) : NULL;
  if (lowering && !p->code && !module)
    return false;
  op_list ops = {0};
  if (module) {
    ops.mc = lsim_lowering_module_context(lowering);
    /* The module context narrated the last lines (the earlier ones are the
     * request's and a session's). */
    ops.offset = (long)p->narration->count - (long)lsim_module_context_explain_line_count(ops.mc);
    mlirOperationWalk(mlirModuleGetOperation(lsim_lowering_module(lowering)), collect_op, &ops,
                      MlirWalkPreOrder);
  }
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta name=\"generator\" content=\"lowersim explain --html\">\n<title>lowersim explain ",
        f);
  esc(f, p->scenario_name ? p->scenario_name : p->path);
  fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<header><h1>lowersim explain <code>",
          css);
  esc(f, p->path);
  fputs("</code></h1>\n<p>", f);
  if (p->scenario_name) {
    fputs("scenario <b>", f);
    esc(f, p->scenario_name);
    fputs("</b> · ", f);
  }
  fputs("<span id=\"jax-version\">", f);
  if (p->facts && p->facts->jax) {
    esc(f, p->facts->jax);
  } else { /* the scenario could not be read: the version asked for */
    fputs("JAX ", f);
    esc(f, jax->name);
    fputs(" (commit ", f);
    esc(f, jax->commit);
    fputc(')', f);
  }
  fputs("</span> · source links at <a id=\"source-ref\" href=\"https://github.com/jax-ml/jax/tree/",
        f);
  esc(f, jax->source_ref);
  fputs("\">github.com/jax-ml/jax ", f);
  esc(f, jax->source_ref);
  fputs("</a>", f);
  fputs("</p>\n<p>outcome: ", f);
  if (p->code) {
    fputs("<span id=\"outcome\" class=\"outcome error\">", f);
    esc(f, lsim_status_name(p->code));
    fputs(": ", f);
    if (p->error_class) {
      esc(f, p->error_class);
      fputs(": ", f);
    }
    esc(f, p->error_message);
  } else {
    fputs("<span id=\"outcome\" class=\"outcome ok\">a verified module", f);
  }
  fputs("</span></p></header>\n<details open><summary>Scenario</summary><pre id=\"scenario\">",
        f);
  esc(f, p->scenario_text ? p->scenario_text : "(not available)");
  fputs("</pre></details>\n", f);
  /* What the terminal shows first: the JAX program and its jaxpr. */
  fputs("<details open id=\"python-section\"><summary>JAX program (Python; explain --python "
        "prints it alone)</summary><pre id=\"python\">",
        f);
  esc(f, p->python ? p->python : "(none: the rendering does not cover this scenario)");
  fputs("</pre></details>\n<details open id=\"jaxpr-section\"><summary>jaxpr "
        "(jax.make_jaxpr(f)(*args))</summary><pre id=\"jaxpr\">",
        f);
  esc(f, p->jaxpr ? p->jaxpr : "(none: tracing fails; the outcome says why)");
  fputs("</pre></details>\n", f);
  if (p->facts)
    write_facts(f, p->facts);
  fputs("<main>\n", f);
  /* The module first into memory: which ops are linked decides the
   * narration's lists. */
  char *mod_html = NULL;
  size_t mod_size = 0;
  FILE *mem = open_memstream(&mod_html, &mod_size);
  bool *linked = NULL;
  char form[256];
  if (refused[0])
    snprintf(form, sizeof form, "MLIR's generic form: lowersim has no pretty form for %s",
             refused);
  else
    snprintf(form, sizeof form, "%s",
             p->generic ? "MLIR's generic form (--generic)"
                        : "JAX's pretty form, as jax.jit(f).lower(...).as_text() prints it");
  bool ok = mem && write_module(mem, module, &ops, form, &linked);
  if (mem)
    fclose(mem);
  step_ops by_line = {0};
  ok = ok && group_ops(&ops, linked, p->narration->count, &by_line);
  if (ok) {
    write_narration(f, p, &ops, &by_line);
    fputs(mod_html ? mod_html : "", f);
    fprintf(f, "</main>\n<script>%s</script>\n</body></html>\n", js);
  }
  free(by_line.start);
  free(by_line.order);
  free(mod_html);
  free(linked);
  free(ops.step_lines);
  free(ops.ops);
  free(module);
  return ok;
}
