// SPDX-License-Identifier: MIT
/*
 * gen.c - fbidl's C generator: one header and one source per .fbidl file
 * (docs/idl.md describes what they hold and the ownership rules).
 *
 * Every value has a "storage" form (what a struct field or an owned local
 * holds: a malloc'ed string, an array and its length, a struct), an "in"
 * form (how an in argument is passed: by value, const pointer, pointer and
 * length) and an "out" form (a pointer to storage).  The client reads a
 * reply into temporaries and hands them over only when the whole reply was
 * good; the server reads a request into locals, calls the implementation,
 * writes the reply, and frees what it read and what the implementation
 * returned.  Names: the caller's identifiers never start with fb_ (the
 * parser refuses them), so every local the generated code needs does.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fbidl.h"

static FILE *out;

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

static bool is_scalar(enum fi_kind k)
{
	return k >= FI_BYTE && k <= FI_BOOL;
}

/* The helper suffix of a scalar: fb_wr_int(), fb_rd_int_array(), ... */
static const char *scalar_fn(enum fi_kind k)
{
	switch (k) {
	case FI_BYTE: return "byte";
	case FI_CHAR: return "char";
	case FI_INT: return "int";
	case FI_LONG: return "long";
	case FI_FLOAT: return "float";
	case FI_DOUBLE: return "double";
	default: return "boolean";
	}
}

static const char *scalar_ctype(enum fi_kind k)
{
	switch (k) {
	case FI_BYTE: return "int8_t";
	case FI_CHAR: return "uint16_t";
	case FI_INT: return "int32_t";
	case FI_LONG: return "int64_t";
	case FI_FLOAT: return "float";
	case FI_DOUBLE: return "double";
	default: return "bool";
	}
}

/* The library's reader/writer suffix for a scalar's wire type. */
static const char *scalar_wire(enum fi_kind k)
{
	switch (k) {
	case FI_BYTE: return "i8";
	case FI_CHAR: return "u16";
	case FI_INT: return "i32";
	case FI_LONG: return "i64";
	case FI_FLOAT: return "double";
	case FI_DOUBLE: return "double";
	default: return "bool";
	}
}

/* The C type of one element of storage, with a trailing space or '*'. */
static void elem_type(const struct fi_type *t, char *buf, size_t n)
{
	switch (t->kind) {
	case FI_STRING:
		snprintf(buf, n, "char *");
		break;
	case FI_FD:
		snprintf(buf, n, "int ");
		break;
	case FI_REGION:
		snprintf(buf, n, "uint32_t ");
		break;
	case FI_BINDER:
		snprintf(buf, n, "struct bl_binder ");
		break;
	case FI_ENUM:
		snprintf(buf, n, "enum %s ", t->decl->cname);
		break;
	case FI_PARCEL:
		snprintf(buf, n, "struct %s ", t->decl->cname);
		break;
	default:
		snprintf(buf, n, "%s ", t->array && t->kind == FI_BYTE ?
			 "uint8_t" : scalar_ctype(t->kind));
	}
}

/* "T name;" (and "size_t name_len;") at indent, for fields and locals. */
static void decl_storage(const struct fi_type *t, const char *name,
			 const char *indent, const char *prefix, bool zero_copy)
{
	char et[96];

	elem_type(t, et, sizeof(et));
	if (zero_copy && t->kind == FI_STRING && !t->array) {
		emit("%sconst char *%s%s;\n", indent, prefix, name);
	} else if (t->array) {
		emit("%s%s%s*%s%s;\n", indent, zero_copy && t->kind == FI_BYTE ?
		     "const " : "", et, prefix, name);
		emit("%ssize_t %s%s_len;\n", indent, prefix, name);
	} else {
		emit("%s%s%s%s;\n", indent, et, prefix, name);
	}
}

/* A parameter in its "in" form. */
static void param_in(const struct fi_type *t, const char *name)
{
	char et[96];

	elem_type(t, et, sizeof(et));
	if (t->array)
		emit("const %s*%s, size_t %s_len", et, name, name);
	else if (t->kind == FI_STRING)
		emit("const char *%s", name);
	else if (t->kind == FI_PARCEL)
		emit("const %s*%s", et, name);
	else
		emit("%s%s", et, name);
}

/* A parameter in its "out" form: a pointer to storage. */
static void param_out(const struct fi_type *t, const char *name)
{
	char et[96];

	elem_type(t, et, sizeof(et));
	if (t->array)
		emit("%s**%s, size_t *%s_len", et, name, name);
	else
		emit("%s*%s", et, name);
}

/* ---- expressions ------------------------------------------------------- */

/*
 * A place: an lvalue v holding storage (and n, its length, for arrays).
 * The "in" value of a place is v (a parcel's: &v).
 */
struct place {
	char v[160];
	char n[160];
};

static void place_of(struct place *pl, const char *fmt_v, const char *fmt_n,
		     const char *name)
{
	/* cppcheck-suppress ctuuninitvar ; pl is written here, not read */
	snprintf(pl->v, sizeof(pl->v), fmt_v, name);
	snprintf(pl->n, sizeof(pl->n), fmt_n, name);
}

/* "if (!fb_ret) fb_ret = <write>;" of value pl to parcel p */
static void emit_write(const char *indent, const char *ret, const char *p,
		       const struct fi_type *t, const struct place *pl, bool first)
{
	const char *k = t->decl ? t->decl->cname : "";

	if (first)
		emit("%s%s = ", indent, ret);
	else
		emit("%sif (!%s)\n%s\t%s = ", indent, ret, indent, ret);
	if (t->array) {
		if (t->kind == FI_BYTE)
			emit("bl_parcel_write_blob(%s, %s, %s);\n", p, pl->v, pl->n);
		else if (t->kind == FI_ENUM)
			emit("fb_wr_e_%s_array(%s, %s, %s);\n", k, p, pl->v, pl->n);
		else if (t->kind == FI_PARCEL)
			emit("fb_wr_p_%s_array(%s, %s, %s);\n", k, p, pl->v, pl->n);
		else
			emit("fb_wr_%s_array(%s, %s, %s);\n", scalar_fn(t->kind), p,
			     pl->v, pl->n);
		return;
	}
	switch (t->kind) {
	case FI_STRING:
		emit("bl_parcel_write_string(%s, %s);\n", p, pl->v);
		break;
	case FI_FD:
		emit("bl_parcel_write_fd(%s, %s);\n", p, pl->v);
		break;
	case FI_REGION:
		emit("bl_parcel_write_region(%s, %s);\n", p, pl->v);
		break;
	case FI_BINDER:
		emit("fb_wr_binder(%s, %s);\n", p, pl->v);
		break;
	case FI_ENUM:
		emit("fb_wr_e_%s(%s, %s);\n", k, p, pl->v);
		break;
	case FI_PARCEL:
		emit("%s_write(%s, &%s);\n", k, p, pl->v);
		break;
	default:
		emit("fb_wr_%s(%s, %s);\n", scalar_fn(t->kind), p, pl->v);
	}
}

enum rd_mode {
	RD_COPY,	/* into storage: strings and blobs copied */
	RD_SERVER_IN,	/* an in argument of a server: strings, blobs, fds,
			 * regions and handles point into the message */
	RD_CLIENT,	/* a reply: also fds dup'ed, handles acquired */
};

/* "if (!fb_ret) fb_ret = <read>;" into place pl from reader r */
static void emit_read(const char *indent, const char *r, const char *ctx,
		      const struct fi_type *t, const struct place *pl,
		      enum rd_mode mode, bool first)
{
	const char *k = t->decl ? t->decl->cname : "";

	if (first)
		emit("%sfb_ret = ", indent);
	else
		emit("%sif (!fb_ret)\n%s\tfb_ret = ", indent, indent);
	if (t->array) {
		if (t->kind == FI_BYTE && mode == RD_SERVER_IN)
			emit("fb_rd_blob_ref(%s, &%s, &%s);\n", r, pl->v, pl->n);
		else if (t->kind == FI_BYTE)
			emit("fb_rd_blob_dup(%s, &%s, &%s);\n", r, pl->v, pl->n);
		else if (t->kind == FI_ENUM)
			emit("fb_rd_e_%s_array(%s, &%s, &%s);\n", k, r, pl->v, pl->n);
		else if (t->kind == FI_PARCEL)
			emit("fb_rd_p_%s_array(%s, &%s, &%s);\n", k, r, pl->v, pl->n);
		else
			emit("fb_rd_%s_array(%s, &%s, &%s);\n", scalar_fn(t->kind), r,
			     pl->v, pl->n);
		return;
	}
	switch (t->kind) {
	case FI_STRING:
		if (mode == RD_SERVER_IN)
			emit("bl_reader_read_string(%s, &%s, NULL);\n", r, pl->v);
		else
			emit("fb_rd_string_dup(%s, &%s);\n", r, pl->v);
		break;
	case FI_FD:
		if (mode == RD_CLIENT)
			emit("fb_rd_fd_dup(%s, &%s);\n", r, pl->v);
		else
			emit("bl_reader_read_fd(%s, &%s);\n", r, pl->v);
		break;
	case FI_REGION:
		if (mode == RD_CLIENT)
			emit("fb_rd_region_keep(%s, %s, &%s);\n", ctx, r, pl->v);
		else
			emit("bl_reader_read_region(%s, &%s);\n", r, pl->v);
		break;
	case FI_BINDER:
		emit("fb_rd_binder(%s, %s, &%s, %s);\n", ctx, r, pl->v,
		     mode == RD_CLIENT ? "true" : "false");
		break;
	case FI_ENUM:
		emit("fb_rd_e_%s(%s, &%s);\n", k, r, pl->v);
		break;
	case FI_PARCEL:
		emit("%s_read(%s, &%s);\n", k, r, pl->v);
		break;
	default:
		emit("fb_rd_%s(%s, &%s);\n", scalar_fn(t->kind), r, pl->v);
	}
}

enum free_mode {
	FR_STORAGE,	/* memory only */
	FR_SERVER_IN,	/* zero-copy in argument: only a local binder's ref */
	FR_SERVER_OUT,	/* an implementation's result: memory, a local
			 * binder's ref; fds and handles stay its own */
	FR_CLIENT,	/* a reply's temporaries: also close, release */
};

/* Releases what place pl holds; leaves nothing to do twice. */
static void emit_free(const char *indent, const char *ctx,
		      const struct fi_type *t, const struct place *pl,
		      enum free_mode mode)
{
	if (t->array) {
		if (mode == FR_SERVER_IN && t->kind == FI_BYTE)
			return;
		if (t->kind == FI_PARCEL)
			emit("%sfb_free_p_%s_array(%s, %s);\n", indent,
			     t->decl->cname, pl->v, pl->n);
		else
			emit("%sfree(%s);\n", indent, pl->v);
		return;
	}
	switch (t->kind) {
	case FI_STRING:
		if (mode != FR_SERVER_IN)
			emit("%sfree(%s);\n", indent, pl->v);
		break;
	case FI_PARCEL:
		emit("%s%s_fini(&%s);\n", indent, t->decl->cname, pl->v);
		break;
	case FI_FD:
		if (mode == FR_CLIENT)
			emit("%sif (%s >= 0)\n%s\tclose(%s);\n", indent, pl->v,
			     indent, pl->v);
		break;
	case FI_REGION:
		if (mode == FR_CLIENT)
			emit("%sif (%s)\n%s\tbl_handle_release(%s, %s);\n", indent,
			     pl->v, indent, ctx, pl->v);
		break;
	case FI_BINDER:
		if (mode == FR_CLIENT)
			emit("%sbl_binder_release(%s, &%s);\n", indent, ctx, pl->v);
		else
			emit("%sbl_object_unref(%s.obj);\n", indent, pl->v);
		break;
	default:
		break;
	}
}

/* Zeroes a local (fds: -1). */
static void emit_init(const char *indent, const struct fi_type *t,
		      const struct place *pl)
{
	if (t->array)
		emit("%s%s = NULL;\n%s%s = 0;\n", indent, pl->v, indent, pl->n);
	else if (t->kind == FI_FD)
		emit("%s%s = -1;\n", indent, pl->v);
	else if (t->kind == FI_PARCEL || t->kind == FI_BINDER)
		emit("%smemset(&%s, 0, sizeof(%s));\n", indent, pl->v, pl->v);
	else if (t->kind == FI_STRING)
		emit("%s%s = NULL;\n", indent, pl->v);
	else if (t->kind == FI_ENUM)
		emit("%s%s = (enum %s)0;\n", indent, pl->v, t->decl->cname);
	else if (t->kind == FI_BOOL)
		emit("%s%s = false;\n", indent, pl->v);
	else
		emit("%s%s = 0;\n", indent, pl->v);
}

/* "x" / "x, x_len" / "&x": a place's in form, as an argument */
static void emit_in_arg(const struct fi_type *t, const struct place *pl)
{
	if (t->array)
		emit("%s, %s", pl->v, pl->n);
	else if (t->kind == FI_PARCEL)
		emit("&%s", pl->v);
	else
		emit("%s", pl->v);
}

/* "&x" / "&x, &x_len": a place's out form */
static void emit_out_arg(const struct fi_type *t, const struct place *pl)
{
	if (t->array)
		emit("&%s, &%s", pl->v, pl->n);
	else
		emit("&%s", pl->v);
}

/* ---- the header -------------------------------------------------------- */

static void emit_string_literal(const char *s)
{
	emit("\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			emit("\\%c", *s);
		else if (*s == '\n')
			emit("\\n");
		else if (*s == '\t')
			emit("\\t");
		else
			emit("%c", *s);
	}
	emit("\"");
}

static void emit_const(const char *prefix, const struct fi_const *k)
{
	emit("#define %s_%s\t", prefix, k->uname);
	switch (k->type.kind) {
	case FI_STRING:
		emit_string_literal(k->text);
		break;
	case FI_BOOL:
		emit("%s", k->i ? "true" : "false");
		break;
	case FI_FLOAT:
		emit("((float)%s)", k->text);
		break;
	case FI_DOUBLE:
		emit("((double)%s)", k->text);
		break;
	case FI_LONG:
		if (k->i == INT64_MIN)
			emit("(-INT64_C(9223372036854775807) - 1)");
		else
			emit("INT64_C(%" PRId64 ")", k->i);
		break;
	default:
		emit("((%s)%" PRId64 ")", scalar_ctype(k->type.kind), k->i);
	}
	emit("\n");
}

/*
 * A parameter list, wrapped before 80 columns: head is what comes before
 * the first parameter (from column col), each parameter is one string.
 */
static void emit_list(const char *head, int col, char **items, size_t n,
		      const char *tail)
{
	int c = col + (int)strlen(head);

	emit("%s", head);
	for (size_t i = 0; i < n; i++) {
		int len;

		if (!items[i])
			continue;
		len = (int)strlen(items[i]) + (i + 1 < n ? 1 : (int)strlen(tail));

		if (i && c + 1 + len > 80) {
			emit("\n\t\t");
			c = 16;
		} else if (i) {
			emit(" ");
			c++;
		}
		emit("%s%s", items[i], i + 1 < n ? "," : "");
		c += (int)strlen(items[i]) + 1;
	}
	emit("%s", tail);
}

/* The parameters of a method as strings: in form, out form, extras. */
static size_t param_strings(const struct fi_method *m, const char *result,
			    char **items, const char *first, const char *last)
{
	FILE *saved = out;
	size_t n = 0, len;

	items[n++] = strdup(first);
	for (size_t i = 0; i <= m->nparams; i++) {
		if (i == m->nparams && m->ret.kind == FI_VOID)
			break;
		out = open_memstream(&items[n], &len);
		if (!out) {
			out = saved;
			break;
		}
		if (i == m->nparams)
			param_out(&m->ret, result);
		else if (m->params[i].dir == FI_IN)
			param_in(&m->params[i].type, m->params[i].name);
		else
			param_out(&m->params[i].type, m->params[i].name);
		fclose(out);
		n++;
	}
	out = saved;
	if (last)
		items[n++] = strdup(last);
	return n;
}

static void emit_params(const char *head, int col, const struct fi_method *m,
			const char *result, const char *first, const char *last,
			const char *tail)
{
	char **items = calloc(m->nparams + 3, sizeof(*items));
	size_t n;

	if (!items) {
		fputs("\n#error out of memory\n", out);
		return;
	}
	n = param_strings(m, result, items, first, last);
	for (size_t i = 0; i < n; i++)
		if (!items[i])
			fputs("\n#error out of memory\n", out);
	emit_list(head, col, items, n, tail);
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

static void emit_method_proto(const struct fi_decl *d, const struct fi_method *m,
			      const char *fn_suffix, const char *self_type,
			      bool with_timeout)
{
	char head[256];

	snprintf(head, sizeof(head), "%sint %s_%s%s(", with_timeout || m->oneway ||
		 strcmp(fn_suffix, "") ? "" : "static inline ", d->cname, m->cname,
		 fn_suffix);
	emit_params(head, 0, m, "fb_result", self_type,
		    with_timeout ? "int fb_timeout_ms" : NULL, ")");
}

static void emit_ops_member(const struct fi_decl *d, const struct fi_method *m)
{
	char head[128];

	snprintf(head, sizeof(head), "\tint32_t (*%s)(", m->cname);
	emit_params(head, 7, m, "fb_result", "void *self",
		    "const struct bl_call_info *info", ");\n");
	(void)d;
}

static void header_parcel(const struct fi_decl *d)
{
	emit("/* parcelable %s: on the wire, an array of its fields in order */\n",
	     d->name);
	for (size_t i = 0; i < d->nconsts; i++)
		emit_const(d->uname, &d->consts[i]);
	emit("struct %s {\n", d->cname);
	for (size_t i = 0; i < d->nfields; i++)
		decl_storage(&d->fields[i].type, d->fields[i].name, "\t", "", false);
	emit("};\n\n");
	emit("/* Appends *v to p: 0 or a parcel error. */\n");
	emit("int %s_write(struct bl_parcel *p, const struct %s *v);\n", d->cname,
	     d->cname);
	emit("/*\n * Reads one into *v (owned by the caller: %s_fini()); on error *v is\n"
	     " * empty and the reader unmoved.  -ENOMEM or a reader error.\n */\n",
	     d->cname);
	emit("int %s_read(struct bl_reader *r, struct %s *v);\n", d->cname, d->cname);
	emit("/* Frees what *v holds and zeroes it (NULL is ignored). */\n");
	emit("void %s_fini(struct %s *v);\n\n", d->cname, d->cname);
}

static void header_enum(const struct fi_decl *d)
{
	emit("/* enum %s: on the wire, a %s */\n", d->name, scalar_wire(d->backing));
	emit("enum %s {\n", d->cname);
	for (size_t i = 0; i < d->nitems; i++)
		emit("\t%s_%s = %" PRId64 ",\n", d->uname, d->items[i].uname,
		     d->items[i].value);
	emit("};\n\n");
}

/* "return NAME_timeout(fb_p, a, a_len, ..., BL_NO_TIMEOUT);" */
static void emit_forward(const char *c, const struct fi_method *m)
{
	char **names = calloc(2 * m->nparams + 4, sizeof(*names));
	char head[200];
	size_t k = 0;

	if (!names) {
		fputs("#error out of memory\n", out);
		return;
	}
	names[k++] = strdup("fb_p");
	for (size_t j = 0; j < m->nparams; j++) {
		names[k++] = strdup(m->params[j].name);
		if (m->params[j].type.array &&
		    asprintf(&names[k++], "%s_len", m->params[j].name) < 0)
			names[k - 1] = NULL;
	}
	if (m->ret.kind != FI_VOID) {
		names[k++] = strdup("fb_result");
		if (m->ret.array)
			names[k++] = strdup("fb_result_len");
	}
	names[k++] = strdup("BL_NO_TIMEOUT");
	for (size_t j = 0; j < k; j++)
		if (!names[j])
			fputs("#error out of memory\n", out);
	snprintf(head, sizeof(head), "\treturn %s_%s_timeout(", c, m->cname);
	emit_list(head, 7, names, k, ");\n");
	for (size_t j = 0; j < k; j++)
		free(names[j]);
	free(names);
}

static void header_async(const struct fi_decl *d, const struct fi_method *m);

static void header_interface(const struct fi_file *f, const struct fi_decl *d)
{
	const char *c = d->cname, *u = d->uname;

	emit("/* ---- interface %s ---- */\n\n", d->name);
	emit("/* The descriptor token every call carries, checked by the stub. */\n");
	emit("#define %s_DESCRIPTOR\t", u);
	emit_string_literal(fi_descriptor(f, d));
	emit("\n");
	if (d->version) {
		char hash[17];

		fi_hash(f, d, hash);
		emit("/* A stable interface: its version and the hash of its methods. */\n");
		emit("#define %s_VERSION\t%u\n", u, d->version);
		emit("#define %s_HASH\t\"%s\"\n", u, hash);
	}
	for (size_t i = 0; i < d->nconsts; i++)
		emit_const(u, &d->consts[i]);
	emit("\n/* Method codes: stable, by declaration order (or as declared). */\n");
	emit("enum %s_code {\n", c);
	for (size_t i = 0; i < d->nmethods; i++)
		emit("\t%s_CODE_%s = %u,\n", u, d->methods[i].uname, d->methods[i].code);
	emit("};\n\n");

	emit("/*\n * Client side.  A proxy names a remote object of this interface; the\n"
	     " * calls return 0, a negative errno (the transport's, or -EPROTO for a\n"
	     " * malformed reply), or the status the implementation returned.  Out\n"
	     " * values are set only on success, and are then the caller's (free()\n"
	     " * strings and arrays, *_fini() parcelables, close() fds, release\n"
	     " * handles); an out pointer may be NULL to drop the value.\n */\n");
	emit("struct %s_proxy {\n\tstruct bl_context *ctx;\n\tuint32_t handle;\n};\n\n", c);
	emit("/* A proxy for handle, with a reference of its own (bl_handle_acquire()). */\n");
	emit("int %s_proxy_wrap(struct bl_context *ctx, uint32_t handle,\n"
	     "\t\tstruct %s_proxy *out);\n", c, c);
	emit("/* A proxy for the service registered as name (bl_sm_get()). */\n");
	emit("int %s_proxy_get(struct bl_context *ctx, const char *name, int timeout_ms,\n"
	     "\t\tstruct %s_proxy *out);\n", c, c);
	emit("/* Drops the proxy's reference to its handle. */\n");
	emit("void %s_proxy_release(struct %s_proxy *p);\n\n", c, c);

	for (size_t i = 0; i < d->nmethods; i++) {
		const struct fi_method *m = &d->methods[i];
		char self[96];

		snprintf(self, sizeof(self), "const struct %s_proxy *fb_p", c);
		if (m->oneway) {
			emit("/* %s (oneway): returns once the message is queued. */\n",
			     m->name);
			emit_method_proto(d, m, "", self, false);
			emit(";\n");
			continue;
		}
		emit("/* %s; the _timeout variant waits at most fb_timeout_ms. */\n", m->name);
		emit_method_proto(d, m, "_timeout", self, true);
		emit(";\n");
		emit_method_proto(d, m, "", self, false);
		emit("\n{\n");
		emit_forward(c, m);
		emit("}\n\n");
		header_async(d, m);
	}
	emit("/*\n * The remote's version (stable interfaces: %s_VERSION; else\n"
	     " * -EOPNOTSUPP) and hash (a malloc'ed string).\n */\n", u);
	emit("int %s_get_interface_version(const struct %s_proxy *p, int32_t *version);\n",
	     c, c);
	emit("int %s_get_interface_hash(const struct %s_proxy *p, char **hash);\n\n", c, c);

	emit("/*\n * Server side: the implementation, one function per method (NULL: the\n"
	     " * method fails with -EOPNOTSUPP).  Each returns 0 or a status for the\n"
	     " * caller; in values are the stub's, valid during the call; out values\n"
	     " * start zeroed, and what they point to then belongs to the stub,\n"
	     " * which frees it (fds and handles excepted: they stay the\n"
	     " * implementation's; a local object's reference passes to the stub).\n */\n");
	emit("struct %s_ops {\n", c);
	for (size_t i = 0; i < d->nmethods; i++)
		emit_ops_member(d, &d->methods[i]);
	emit("};\n\n");
	emit("/*\n * A new local object serving ops with self; destroy (may be NULL) runs\n"
	     " * with self when the object is freed.  -EINVAL, -ENOMEM.\n */\n");
	emit("int %s_export(struct bl_context *ctx, const struct %s_ops *ops, void *self,\n"
	     "\t\tvoid (*destroy)(void *self), struct bl_object **out);\n", c, c);
	emit("/*\n * The handler's work, for a handler of one's own: checks the token\n"
	     " * (-EPROTOTYPE), the code (-EOPNOTSUPP) and the arguments (-EBADMSG),\n"
	     " * calls ops and writes the reply.\n */\n");
	emit("int32_t %s_dispatch(const struct %s_ops *ops, void *self, uint32_t code,\n"
	     "\t\tstruct bl_reader *request, struct bl_parcel *reply,\n"
	     "\t\tconst struct bl_call_info *info);\n\n", c, c);
}

static void gen_header(const struct fi_file *f, const char *guard)
{
	emit("/* SPDX-License-Identifier: MIT */\n");
	emit("/* Generated by fbidl %s from %s: do not edit. */\n", FBIDL_VERSION,
	     f->path);
	emit("#ifndef %s\n#define %s\n\n", guard, guard);
	emit("#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n");
	emit("#include <binderlite.h>\n\n");
	emit("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
	for (size_t i = 0; i < f->ndecls; i++) {
		const struct fi_decl *d = f->decls[i];

		if (d->what == FI_ENUMDECL)
			header_enum(d);
		else if (d->what == FI_PARCELABLE)
			header_parcel(d);
		else
			header_interface(f, d);
	}
	emit("#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n", guard);
}

/* ---- the source: helpers ------------------------------------------------- */

struct used {
	bool scalar_array[FI_BOOL + 1];
};

static void mark(struct used *u, const struct fi_type *t)
{
	if (t->array && is_scalar(t->kind) && t->kind != FI_BYTE)
		u->scalar_array[t->kind] = true;
}

static void find_used(const struct fi_file *f, struct used *u)
{
	memset(u, 0, sizeof(*u));
	for (size_t i = 0; i < f->ndecls; i++) {
		const struct fi_decl *d = f->decls[i];

		for (size_t j = 0; j < d->nfields; j++)
			mark(u, &d->fields[j].type);
		for (size_t j = 0; j < d->nmethods; j++) {
			mark(u, &d->methods[j].ret);
			for (size_t k = 0; k < d->methods[j].nparams; k++)
				mark(u, &d->methods[j].params[k].type);
		}
	}
}

static const char *const prelude[] = {
"/* the helpers a file does not use: clang warns about unused static inline ones */\n"
"#if defined(__GNUC__) || defined(__clang__)\n"
"#define FB_UNUSED __attribute__((unused))\n"
"#else\n"
"#define FB_UNUSED\n"
"#endif\n"
"\n",
"/*\n"
" * Helpers: each reads or writes one value; a read that fails leaves the\n"
" * reader where it was and nothing allocated.\n"
" */\n"
"static inline FB_UNUSED int fb_wr_float(struct bl_parcel *p, float v)\n"
"{\n"
"\treturn bl_parcel_write_double(p, v);\n"
"}\n"
"\n",
"/* a double that a float holds exactly (or NaN, or an infinity) */\n"
"static inline FB_UNUSED int fb_rd_float(struct bl_reader *r, float *v)\n"
"{\n"
"\tstruct bl_reader fb_s = *r;\n"
"\tdouble d;\n"
"\tint ret = bl_reader_read_double(r, &d);\n"
"\n",
"\tif (ret)\n"
"\t\treturn ret;\n"
"\tif (d == d && d >= -FLT_MAX && d <= FLT_MAX && (double)(float)d != d) {\n"
"\t\t*r = fb_s;\n"
"\t\treturn -EBADMSG;\n"
"\t}\n"
"\tif (d == d && (d < -FLT_MAX || d > FLT_MAX) && d >= -DBL_MAX && d <= DBL_MAX) {\n"
"\t\t*r = fb_s;\n"
"\t\treturn -EBADMSG;\n"
"\t}\n"
"\t*v = (float)d;\n"
"\treturn 0;\n"
"}\n"
"\n",
"static inline FB_UNUSED int fb_rd_string_dup(struct bl_reader *r, char **v)\n"
"{\n"
"\tstruct bl_reader fb_s = *r;\n"
"\tconst char *s;\n"
"\tsize_t len;\n"
"\tint ret = bl_reader_read_string(r, &s, &len);\n"
"\n",
"\tif (ret)\n"
"\t\treturn ret;\n"
"\t*v = malloc(len + 1);\n"
"\tif (!*v) {\n"
"\t\t*r = fb_s;\n"
"\t\treturn -ENOMEM;\n"
"\t}\n"
"\tmemcpy(*v, s, len + 1);\n"
"\treturn 0;\n"
"}\n"
"\n",
"static inline FB_UNUSED int fb_rd_blob_ref(struct bl_reader *r, const uint8_t **v, size_t *n)\n"
"{\n"
"\tconst void *b;\n"
"\tint ret = bl_reader_read_blob(r, &b, n);\n"
"\n",
"\tif (!ret)\n"
"\t\t*v = b;\n"
"\treturn ret;\n"
"}\n"
"\n",
"static inline FB_UNUSED int fb_rd_blob_dup(struct bl_reader *r, uint8_t **v, size_t *n)\n"
"{\n"
"\tstruct bl_reader fb_s = *r;\n"
"\tconst void *b;\n"
"\tsize_t len;\n"
"\tint ret = bl_reader_read_blob(r, &b, &len);\n"
"\n",
"\tif (ret)\n"
"\t\treturn ret;\n"
"\t*v = NULL;\n"
"\tif (len) {\n"
"\t\t*v = malloc(len);\n"
"\t\tif (!*v) {\n"
"\t\t\t*r = fb_s;\n"
"\t\t\treturn -ENOMEM;\n"
"\t\t}\n"
"\t\tmemcpy(*v, b, len);\n"
"\t}\n"
"\t*n = len;\n"
"\treturn 0;\n"
"}\n"
"\n",
"/* a descriptor of a reply: the reply closes its own, the caller gets a dup */\n"
"static inline FB_UNUSED int fb_rd_fd_dup(struct bl_reader *r, int *v)\n"
"{\n"
"\tstruct bl_reader fb_s = *r;\n"
"\tint fd, ret = bl_reader_read_fd(r, &fd);\n"
"\n",
"\tif (ret)\n"
"\t\treturn ret;\n"
"\t*v = fcntl(fd, F_DUPFD_CLOEXEC, 0);\n"
"\tif (*v < 0) {\n"
"\t\tret = -errno;\n"
"\t\t*r = fb_s;\n"
"\t}\n"
"\treturn ret;\n"
"}\n"
"\n",
"/* a region handle of a reply, acquired for the caller */\n"
"static inline FB_UNUSED int fb_rd_region_keep(struct bl_context *ctx, struct bl_reader *r,\n"
"\t\t\t\t    uint32_t *v)\n"
"{\n"
"\tstruct bl_reader fb_s = *r;\n"
"\tint ret = bl_reader_read_region(r, v);\n"
"\n",
"\tif (!ret)\n"
"\t\tret = bl_handle_acquire(ctx, *v);\n"
"\tif (ret)\n"
"\t\t*r = fb_s;\n"
"\treturn ret;\n"
"}\n"
"\n",
"static inline FB_UNUSED int fb_wr_binder(struct bl_parcel *p, struct bl_binder b)\n"
"{\n"
"\treturn b.obj ? bl_parcel_write_obj(p, b.obj) : bl_parcel_write_handle(p, b.handle);\n"
"}\n"
"\n",
"/*\n"
" * An interface: a handle (acquired when keep), or one of our own objects\n"
" * (with a new reference).\n"
" */\n"
"static inline FB_UNUSED int fb_rd_binder(struct bl_context *ctx, struct bl_reader *r,\n"
"\t\t\t       struct bl_binder *b, bool keep)\n"
"{\n"
"\tstruct bl_reader fb_s = *r;\n"
"\tstruct fbinder_object o;\n"
"\tint ret = bl_reader_read_object(r, &o);\n"
"\n",
"\tif (ret)\n"
"\t\treturn ret;\n"
"\tb->obj = NULL;\n"
"\tb->handle = 0;\n"
"\tif (o.type == FBINDER_OBJ_HANDLE) {\n"
"\t\tb->handle = o.handle;\n"
"\t\tif (keep)\n"
"\t\t\tret = bl_handle_acquire(ctx, o.handle);\n"
"\t} else {\n"
"\t\tret = bl_object_from_cookie(ctx, o.cookie, &b->obj);\n"
"\t\tif (ret == -ENOENT)\n"
"\t\t\tret = -EBADMSG;\n"
"\t}\n"
"\tif (ret)\n"
"\t\t*r = fb_s;\n"
"\treturn ret;\n"
"}\n"
"\n",
"/* the version and hash of a stable interface (the built-in methods) */\n"
"static inline FB_UNUSED int32_t fb_builtin(uint32_t code, struct bl_reader *r,\n"
"\t\t\t\t struct bl_parcel *reply, int32_t version,\n"
"\t\t\t\t const char *hash)\n"
"{\n"
"\tif (bl_reader_remaining(r))\n"
"\t\treturn -EBADMSG;\n"
"\tif (!reply)\n"
"\t\treturn 0;\n"
"\tif (code == BL_IDL_CODE_VERSION)\n"
"\t\treturn bl_parcel_write_i32(reply, version);\n"
"\treturn bl_parcel_write_string(reply, hash);\n"
"}\n"
"\n",
"static inline FB_UNUSED int fb_call_builtin(struct bl_context *ctx, uint32_t handle,\n"
"\t\t\t\t  const char *descriptor, uint32_t code,\n"
"\t\t\t\t  int32_t *version, char **hash)\n"
"{\n"
"\tstruct bl_parcel fb_req = BL_PARCEL_INIT;\n"
"\tstruct bl_reply fb_rep;\n"
"\tint32_t v = 0;\n"
"\tchar *h = NULL;\n"
"\tint fb_ret;\n"
"\n",
"\tfb_ret = bl_parcel_write_string(&fb_req, descriptor);\n"
"\tif (!fb_ret)\n"
"\t\tfb_ret = bl_call(ctx, handle, code, &fb_req, &fb_rep, BL_NO_TIMEOUT);\n"
"\tbl_parcel_fini(&fb_req);\n"
"\tif (fb_ret)\n"
"\t\treturn fb_ret;\n"
"\tfb_ret = fb_rep.status;\n"
"\tif (!fb_ret) {\n"
"\t\tif (code == BL_IDL_CODE_VERSION)\n"
"\t\t\tfb_ret = bl_reader_read_i32(&fb_rep.reader, &v);\n"
"\t\telse\n"
"\t\t\tfb_ret = fb_rd_string_dup(&fb_rep.reader, &h);\n"
"\t\tif (!fb_ret && bl_reader_remaining(&fb_rep.reader))\n"
"\t\t\tfb_ret = -EBADMSG;\n"
"\t\tif (fb_ret && fb_ret != -ENOMEM)\n"
"\t\t\tfb_ret = -EPROTO;\n"
"\t}\n"
"\tbl_reply_fini(&fb_rep);\n"
"\tif (fb_ret) {\n"
"\t\tfree(h);\n"
"\t\treturn fb_ret;\n"
"\t}\n"
"\tif (version)\n"
"\t\t*version = v;\n"
"\tif (hash)\n"
"\t\t*hash = h;\n"
"\telse\n"
"\t\tfree(h);\n"
"\treturn 0;\n"
"}\n"
"\n",
};

static void scalar_helpers(enum fi_kind k)
{
	if (k == FI_FLOAT)
		return;		/* in the prelude */
	emit("static inline FB_UNUSED int fb_wr_%s(struct bl_parcel *p, %s v)\n{\n"
	     "\treturn bl_parcel_write_%s(p, v);\n}\n\n",
	     scalar_fn(k), scalar_ctype(k), scalar_wire(k));
	emit("static inline FB_UNUSED int fb_rd_%s(struct bl_reader *r, %s *v)\n{\n"
	     "\treturn bl_reader_read_%s(r, v);\n}\n\n",
	     scalar_fn(k), scalar_ctype(k), scalar_wire(k));
}

/*
 * fb_wr_NAME_array() and fb_rd_NAME_array() over fb_wr_NAME() and
 * fb_rd_NAME(); ELEM is the element's C type.  fini frees one element
 * (NULL: nothing to free).
 */
static void array_helpers(const char *name, const char *elem, const char *fini)
{
	emit("static inline FB_UNUSED int fb_wr_%s_array(struct bl_parcel *p, const %s *v, size_t n)\n"
	     "{\n\tint ret;\n\n"
	     "\tif (!v && n)\n\t\treturn -EINVAL;\n"
	     "\tret = bl_parcel_begin_array(p);\n"
	     "\tfor (size_t i = 0; !ret && i < n; i++)\n"
	     "\t\tret = fb_wr_%s(p, %sv[i]);\n"
	     "\tif (!ret)\n\t\tret = bl_parcel_end_array(p);\n"
	     "\treturn ret;\n}\n\n", name, elem, name, fini ? "&" : "");
	if (fini)
		emit("static inline FB_UNUSED void fb_free_%s_array(%s *v, size_t n)\n{\n"
		     "\tfor (size_t i = 0; v && i < n; i++)\n\t\t%s(&v[i]);\n"
		     "\tfree(v);\n}\n\n", name, elem, fini);
	emit("static inline FB_UNUSED int fb_rd_%s_array(struct bl_reader *r, %s **v, size_t *n)\n"
	     "{\n\tstruct bl_reader fb_s = *r, sub;\n\t%s *a = NULL;\n"
	     "\tuint32_t count, i = 0;\n\tint ret = bl_reader_enter_array(r, &sub, &count);\n\n"
	     "\tif (ret)\n\t\treturn ret;\n"
	     "\tif (count) {\n\t\ta = calloc(count, sizeof(*a));\n"
	     "\t\tif (!a) {\n\t\t\t*r = fb_s;\n\t\t\treturn -ENOMEM;\n\t\t}\n\t}\n"
	     "\tfor (; i < count; i++) {\n\t\tret = fb_rd_%s(&sub, &a[i]);\n"
	     "\t\tif (ret)\n\t\t\tbreak;\n\t}\n"
	     "\tif (!ret && bl_reader_remaining(&sub))\n\t\tret = -EBADMSG;\n"
	     "\tif (ret) {\n", name, elem, elem, name);
	if (fini)
		emit("\t\tfb_free_%s_array(a, i);\n", name);
	else
		emit("\t\tfree(a);\n");
	emit("\t\t*r = fb_s;\n\t\treturn ret;\n\t}\n"
	     "\t*v = a;\n\t*n = count;\n\treturn 0;\n}\n\n");
}

static void enum_helpers(const struct fi_decl *d)
{
	const char *b = scalar_ctype(d->backing), *w = scalar_wire(d->backing);
	char name[80], elem[96];

	emit("static inline FB_UNUSED int fb_wr_e_%s(struct bl_parcel *p, enum %s v)\n{\n"
	     "\treturn bl_parcel_write_%s(p, (%s)v);\n}\n\n", d->cname, d->cname, w, b);
	emit("/* only the values the enum declares */\n");
	emit("static inline FB_UNUSED int fb_rd_e_%s(struct bl_reader *r, enum %s *v)\n{\n"
	     "\tstruct bl_reader fb_s = *r;\n\t%s x;\n"
	     "\tint ret = bl_reader_read_%s(r, &x);\n\n\tif (ret)\n\t\treturn ret;\n",
	     d->cname, d->cname, b, w);
	emit("\tif (");
	for (size_t i = 0; i < d->nitems; i++)
		emit("%sx == %s_%s", i ? (i % 3 ? " || " : " ||\n\t    ") : "",
		     d->uname, d->items[i].uname);
	emit(") {\n\t\t*v = (enum %s)x;\n\t\treturn 0;\n\t}\n"
	     "\t*r = fb_s;\n\treturn -EBADMSG;\n}\n\n", d->cname);
	snprintf(name, sizeof(name), "e_%s", d->cname);
	snprintf(elem, sizeof(elem), "enum %s", d->cname);
	array_helpers(name, elem, NULL);
}

/* parcelable read/write/fini, and the array helpers over them */
static void parcel_functions(const struct fi_decl *d)
{
	const char *c = d->cname;
	char name[80], elem[96], fini[96];

	emit("int %s_write(struct bl_parcel *p, const struct %s *v)\n{\n\tint fb_ret;\n\n"
	     "\tif (!v)\n\t\treturn -EINVAL;\n\tfb_ret = bl_parcel_begin_array(p);\n",
	     c, c);
	for (size_t i = 0; i < d->nfields; i++) {
		struct place pl;

		place_of(&pl, "v->%s", "v->%s_len", d->fields[i].name);
		emit_write("\t", "fb_ret", "p", &d->fields[i].type, &pl, false);
	}
	emit("\tif (!fb_ret)\n\t\tfb_ret = bl_parcel_end_array(p);\n\treturn fb_ret;\n}\n\n");

	emit("void %s_fini(struct %s *v)\n{\n\tif (!v)\n\t\treturn;\n", c, c);
	for (size_t i = 0; i < d->nfields; i++) {
		struct place pl;

		place_of(&pl, "v->%s", "v->%s_len", d->fields[i].name);
		emit_free("\t", "NULL", &d->fields[i].type, &pl, FR_STORAGE);
	}
	emit("\tmemset(v, 0, sizeof(*v));\n}\n\n");

	emit("int %s_read(struct bl_reader *r, struct %s *v)\n{\n"
	     "\tstruct bl_reader fb_s = *r, fb_sub;\n\tint fb_ret;\n\n"
	     "\tmemset(v, 0, sizeof(*v));\n"
	     "\tfb_ret = bl_reader_enter_array(r, &fb_sub, NULL);\n"
	     "\tif (fb_ret)\n\t\treturn fb_ret;\n", c, c);
	for (size_t i = 0; i < d->nfields; i++) {
		struct place pl;

		place_of(&pl, "v->%s", "v->%s_len", d->fields[i].name);
		emit_read("\t", "&fb_sub", "NULL", &d->fields[i].type, &pl, RD_COPY,
			  i == 0);
	}
	emit("\t/* fields a later version appended: checked, skipped */\n"
	     "\twhile (!fb_ret && bl_reader_remaining(&fb_sub)) {\n"
	     "\t\tfb_ret = bl_reader_skip(&fb_sub);\n"
	     "\t\tif (fb_ret > 0)\n\t\t\tfb_ret = 0;\n\t}\n"
	     "\tif (fb_ret) {\n\t\t%s_fini(v);\n\t\t*r = fb_s;\n\t}\n"
	     "\treturn fb_ret;\n}\n\n", c);

	/* element helpers named as the array helpers expect */
	emit("static inline FB_UNUSED int fb_wr_p_%s(struct bl_parcel *p, const struct %s *v)\n{\n"
	     "\treturn %s_write(p, v);\n}\n\n", c, c, c);
	emit("static inline FB_UNUSED int fb_rd_p_%s(struct bl_reader *r, struct %s *v)\n{\n"
	     "\treturn %s_read(r, v);\n}\n\n", c, c, c);
	snprintf(name, sizeof(name), "p_%s", c);
	snprintf(elem, sizeof(elem), "struct %s", c);
	snprintf(fini, sizeof(fini), "%s_fini", c);
	array_helpers(name, elem, fini);
}

/* ---- the source: an interface ------------------------------------------- */

static void client_method(const struct fi_decl *d, const struct fi_method *m)
{
	const char *c = d->cname;
	char self[96];
	bool first = true;

	snprintf(self, sizeof(self), "const struct %s_proxy *fb_p", c);
	emit_method_proto(d, m, m->oneway ? "" : "_timeout", self, !m->oneway);
	emit("\n{\n\tstruct bl_parcel fb_req = BL_PARCEL_INIT;\n");
	if (!m->oneway)
		emit("\tstruct bl_reply fb_rep;\n");
	if (m->ret.kind != FI_VOID)
		decl_storage(&m->ret, "result", "\t", "fb_o_", false);
	for (size_t i = 0; i < m->nparams; i++)
		if (m->params[i].dir != FI_IN)
			decl_storage(&m->params[i].type, m->params[i].name, "\t",
				     "fb_o_", false);
	emit("\tint fb_ret;\n\n\tif (!fb_p");
	for (size_t i = 0; i < m->nparams; i++) {
		const struct fi_param *p = &m->params[i];

		if (p->dir != FI_INOUT)
			continue;
		emit(" || !%s", p->name);
		if (p->type.array)
			emit(" || !%s_len", p->name);
	}
	emit(")\n\t\treturn -EINVAL;\n");
	emit("\tfb_ret = bl_parcel_write_token(&fb_req, %s_DESCRIPTOR,\n"
	     "\t\t\t\t       sizeof(%s_DESCRIPTOR) - 1);\n", d->uname, d->uname);
	for (size_t i = 0; i < m->nparams; i++) {
		const struct fi_param *p = &m->params[i];
		struct place pl;

		if (p->dir == FI_OUT)
			continue;
		if (p->dir == FI_IN)
			place_of(&pl, "%s", "%s_len", p->name);
		else if (p->type.kind == FI_PARCEL && !p->type.array)
			place_of(&pl, "(*%s)", "", p->name);
		else
			place_of(&pl, "*%s", "*%s_len", p->name);
		if (p->dir == FI_IN && p->type.kind == FI_PARCEL && !p->type.array) {
			/* an in parcelable is passed as a pointer already */
			emit("\tif (!fb_ret)\n\t\tfb_ret = %s_write(&fb_req, %s);\n",
			     p->type.decl->cname, p->name);
			continue;
		}
		emit_write("\t", "fb_ret", "&fb_req", &p->type, &pl, false);
	}
	if (m->oneway) {
		emit("\tif (!fb_ret)\n\t\tfb_ret = bl_send_oneway(fb_p->ctx, fb_p->handle, "
		     "%s_CODE_%s, &fb_req);\n", d->uname, m->uname);
		emit("\tbl_parcel_fini(&fb_req);\n\treturn fb_ret;\n}\n\n");
		return;
	}
	emit("\tif (!fb_ret)\n\t\tfb_ret = bl_call(fb_p->ctx, fb_p->handle, %s_CODE_%s, "
	     "&fb_req, &fb_rep,\n\t\t\t\t fb_timeout_ms);\n", d->uname, m->uname);
	emit("\tbl_parcel_fini(&fb_req);\n\tif (fb_ret)\n\t\treturn fb_ret;\n");
	emit("\tif (fb_rep.status) {\n\t\tfb_ret = fb_rep.status;\n"
	     "\t\tbl_reply_fini(&fb_rep);\n\t\treturn fb_ret;\n\t}\n");
	/* temporaries start empty, so a failure frees exactly what was read */
	if (m->ret.kind != FI_VOID) {
		struct place pl;

		place_of(&pl, "fb_o_%s", "fb_o_%s_len", "result");
		emit_init("\t", &m->ret, &pl);
	}
	for (size_t i = 0; i < m->nparams; i++) {
		struct place pl;

		if (m->params[i].dir == FI_IN)
			continue;
		place_of(&pl, "fb_o_%s", "fb_o_%s_len", m->params[i].name);
		emit_init("\t", &m->params[i].type, &pl);
	}
	if (m->ret.kind != FI_VOID) {
		struct place pl;

		place_of(&pl, "fb_o_%s", "fb_o_%s_len", "result");
		emit_read("\t", "&fb_rep.reader", "fb_p->ctx", &m->ret, &pl, RD_CLIENT,
			  true);
		first = false;
	}
	for (size_t i = 0; i < m->nparams; i++) {
		struct place pl;

		if (m->params[i].dir == FI_IN)
			continue;
		place_of(&pl, "fb_o_%s", "fb_o_%s_len", m->params[i].name);
		emit_read("\t", "&fb_rep.reader", "fb_p->ctx", &m->params[i].type, &pl,
			  RD_CLIENT, first);
		first = false;
	}
	if (first)
		emit("\tfb_ret = bl_reader_remaining(&fb_rep.reader) ? -EBADMSG : 0;\n");
	else
		emit("\tif (!fb_ret && bl_reader_remaining(&fb_rep.reader))\n"
		     "\t\tfb_ret = -EBADMSG;\n");
	emit("\tbl_reply_fini(&fb_rep);\n\tif (fb_ret) {\n");
	/* a failed read left its own place empty: free them all */
	if (m->ret.kind != FI_VOID) {
		struct place pl;

		place_of(&pl, "fb_o_%s", "fb_o_%s_len", "result");
		emit_free("\t\t", "fb_p->ctx", &m->ret, &pl, FR_CLIENT);
	}
	for (size_t i = 0; i < m->nparams; i++) {
		struct place pl;

		if (m->params[i].dir == FI_IN)
			continue;
		place_of(&pl, "fb_o_%s", "fb_o_%s_len", m->params[i].name);
		emit_free("\t\t", "fb_p->ctx", &m->params[i].type, &pl, FR_CLIENT);
	}
	emit("\t\treturn fb_ret == -ENOMEM ? -ENOMEM : -EPROTO;\n\t}\n");
	/* hand over */
	for (size_t i = 0; i <= m->nparams; i++) {
		const struct fi_type *t;
		const char *name;
		struct place tmp, dst;
		bool inout = false;

		if (i == m->nparams) {
			if (m->ret.kind == FI_VOID)
				break;
			t = &m->ret;
			name = "fb_result";
			place_of(&tmp, "fb_o_%s", "fb_o_%s_len", "result");
		} else {
			if (m->params[i].dir == FI_IN)
				continue;
			t = &m->params[i].type;
			name = m->params[i].name;
			inout = m->params[i].dir == FI_INOUT;
			place_of(&tmp, "fb_o_%s", "fb_o_%s_len", name);
		}
		place_of(&dst, "(*%s)", "(*%s_len)", name);
		if (inout) {
			emit_free("\t", "fb_p->ctx", t, &dst, FR_STORAGE);
			emit("\t*%s = %s;\n", name, tmp.v);
			if (t->array)
				emit("\t*%s_len = %s;\n", name, tmp.n);
			continue;
		}
		emit("\tif (%s)\n\t\t*%s = %s;\n", name, name, tmp.v);
		if (t->kind == FI_PARCEL || t->array || t->kind == FI_STRING ||
		    t->kind == FI_FD || t->kind == FI_REGION || t->kind == FI_BINDER) {
			emit("\telse\n");
			emit_free("\t\t", "fb_p->ctx", t, &tmp, FR_CLIENT);
		}
		if (t->array)
			emit("\tif (%s_len)\n\t\t*%s_len = %s;\n", name, name, tmp.n);
	}
	emit("\treturn 0;\n}\n\n");
}

/*
 * The parameters of an async proxy (in_side: the in and inout values, in
 * their in form) or of its completion (the out and inout values and the
 * result, in their out form), between first and last.
 */
static void emit_async_params(const char *head, int col, const struct fi_method *m,
			      bool in_side, const char *first,
			      const char *last, const char *tail)
{
	char **items = calloc(m->nparams + 4, sizeof(*items));
	FILE *saved = out;
	size_t n = 0, len;

	if (!items) {
		fputs("\n#error out of memory\n", out);
		return;
	}
	items[n++] = strdup(first);
	for (size_t i = 0; i <= m->nparams; i++) {
		const struct fi_type *t = i < m->nparams ? &m->params[i].type : &m->ret;
		const char *name = i < m->nparams ? m->params[i].name : "fb_result";
		bool is_in = i < m->nparams && m->params[i].dir != FI_OUT;
		bool is_out = i < m->nparams ? m->params[i].dir != FI_IN :
			      m->ret.kind != FI_VOID;

		if (in_side ? !is_in : !is_out)
			continue;
		out = open_memstream(&items[n], &len);
		if (!out) {
			out = saved;
			break;
		}
		if (in_side)
			param_in(t, name);
		else
			param_out(t, name);
		fclose(out);
		n++;
	}
	out = saved;
	if (last)
		items[n++] = strdup(last);
	for (size_t i = 0; i < n; i++)
		if (!items[i])
			fputs("\n#error out of memory\n", out);
	emit_list(head, col, items, n, tail);
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

/* The async variant's completion type and proxy, declared. */
static void header_async(const struct fi_decl *d, const struct fi_method *m)
{
	const char *c = d->cname;
	char head[256], first[200], last[200];

	emit("/*\n * %s, asynchronously: queued on fb_a (binderlite.h, \"Asynchronous\n"
	     " * calls\"; its context must be the proxy's).  fb_done runs once when\n"
	     " * the call ended, with fb_ret as the synchronous call returns it and,\n"
	     " * when it is 0, the out values (then the completion's, as the call's\n"
	     " * are the caller's; else NULL).  Returns 0 when queued, else an\n"
	     " * errno, and fb_done never runs.\n */\n", m->name);
	snprintf(head, sizeof(head), "typedef void (*%s_%s_done)(", c, m->cname);
	emit_async_params(head, 0, m, false, "void *fb_user, int fb_ret", NULL,
			  ");\n");
	snprintf(head, sizeof(head), "int %s_%s_async(", c, m->cname);
	snprintf(first, sizeof(first), "const struct %s_proxy *fb_p, struct bl_async *fb_a",
		 c);
	snprintf(last, sizeof(last), "%s_%s_done fb_done, void *fb_user", c, m->cname);
	emit_async_params(head, 0, m, true, first, last, ");\n\n");
}

/*
 * Value i of an async call's completion: a method's parameters, then its
 * result (i == m->nparams).  False for an in parameter and a void result,
 * which the completion does not get; else *t and *name are set.
 */
static bool async_out(const struct fi_method *m, size_t i, const struct fi_type **t,
		      const char **name)
{
	if (i < m->nparams) {
		*t = &m->params[i].type;
		*name = m->params[i].name;
		return m->params[i].dir != FI_IN;
	}
	*t = &m->ret;
	*name = "result";
	return m->ret.kind != FI_VOID;
}

/* The values a completion passes: NULLs, or the temporaries' addresses. */
static void emit_done_call(const struct fi_method *m, const char *indent,
			   const char *ret, bool values)
{
	emit("%sfb_done(fb_user, %s", indent, ret);
	for (size_t i = 0; i <= m->nparams; i++) {
		const struct fi_type *t;
		const char *name;

		if (!async_out(m, i, &t, &name))
			continue;
		if (!values)
			emit(t->array ? ", NULL, NULL" : ", NULL");
		else if (t->array)
			emit(", &fb_o_%s, &fb_o_%s_len", name, name);
		else
			emit(", &fb_o_%s", name);
	}
	emit(");\n");
}

/* The async variant: the proxy queues, the completion reads the reply. */
static void client_async(const struct fi_decl *d, const struct fi_method *m)
{
	const char *c = d->cname, *mc = m->cname;
	char head[256], first[200], last[200];
	bool rfirst = true;

	emit("struct fb_async_%s_%s {\n\t%s_%s_done fn;\n\tvoid *user;\n};\n\n",
	     c, mc, c, mc);
	emit("static void fb_complete_%s_%s(struct bl_context *fb_ctx, int fb_ret,\n"
	     "\t\tstruct bl_reply *fb_rep, void *fb_arg)\n{\n"
	     "\tstruct fb_async_%s_%s *fb_c = fb_arg;\n"
	     "\t%s_%s_done fb_done = fb_c->fn;\n\tvoid *fb_user = fb_c->user;\n",
	     c, mc, c, mc, c, mc);
	if (m->ret.kind != FI_VOID)
		decl_storage(&m->ret, "result", "\t", "fb_o_", false);
	for (size_t i = 0; i < m->nparams; i++)
		if (m->params[i].dir != FI_IN)
			decl_storage(&m->params[i].type, m->params[i].name, "\t",
				     "fb_o_", false);
	emit("\n\t(void)fb_ctx;\n\tfree(fb_c);\n");
	/* the same result as the synchronous call's: the status, not -EREMOTEIO */
	emit("\tif (fb_ret == -EREMOTEIO && fb_rep)\n\t\tfb_ret = fb_rep->status;\n");
	emit("\tif (fb_ret || !fb_rep) {\n");
	emit_done_call(m, "\t\t", "fb_ret ? fb_ret : -EPROTO", false);
	emit("\t\treturn;\n\t}\n");
	for (size_t i = 0; i <= m->nparams; i++) {
		const struct fi_type *t;
		const char *name;
		struct place pl;

		if (!async_out(m, i, &t, &name))
			continue;
		place_of(&pl, "fb_o_%s", "fb_o_%s_len", name);
		emit_init("\t", t, &pl);
	}
	/* the result first, then the out values: the reply's order */
	for (size_t k = 0; k <= m->nparams; k++) {
		const struct fi_type *t;
		const char *name;
		struct place pl;

		if (!async_out(m, k == 0 ? m->nparams : k - 1, &t, &name))
			continue;
		place_of(&pl, "fb_o_%s", "fb_o_%s_len", name);
		emit_read("\t", "&fb_rep->reader", "fb_ctx", t, &pl, RD_CLIENT, rfirst);
		rfirst = false;
	}
	if (rfirst)
		emit("\tfb_ret = bl_reader_remaining(&fb_rep->reader) ? -EBADMSG : 0;\n");
	else
		emit("\tif (!fb_ret && bl_reader_remaining(&fb_rep->reader))\n"
		     "\t\tfb_ret = -EBADMSG;\n");
	emit("\tif (fb_ret) {\n");
	for (size_t i = 0; i <= m->nparams; i++) {
		const struct fi_type *t;
		const char *name;
		struct place pl;

		if (!async_out(m, i, &t, &name))
			continue;
		place_of(&pl, "fb_o_%s", "fb_o_%s_len", name);
		emit_free("\t\t", "fb_ctx", t, &pl, FR_CLIENT);
	}
	emit_done_call(m, "\t\t", "fb_ret == -ENOMEM ? -ENOMEM : -EPROTO", false);
	emit("\t\treturn;\n\t}\n");
	emit_done_call(m, "\t", "0", true);
	emit("}\n\n");

	snprintf(head, sizeof(head), "int %s_%s_async(", c, mc);
	snprintf(first, sizeof(first), "const struct %s_proxy *fb_p, struct bl_async *fb_a",
		 c);
	snprintf(last, sizeof(last), "%s_%s_done fb_done, void *fb_user", c, mc);
	emit_async_params(head, 0, m, true, first, last, ")\n");
	emit("{\n\tstruct bl_parcel fb_req = BL_PARCEL_INIT;\n"
	     "\tstruct fb_async_%s_%s *fb_c;\n\tint fb_ret;\n\n"
	     "\tif (!fb_p || !fb_a || !fb_done)\n\t\treturn -EINVAL;\n"
	     "\tfb_c = malloc(sizeof(*fb_c));\n\tif (!fb_c)\n\t\treturn -ENOMEM;\n"
	     "\tfb_c->fn = fb_done;\n\tfb_c->user = fb_user;\n", c, mc);
	emit("\tfb_ret = bl_parcel_write_token(&fb_req, %s_DESCRIPTOR,\n"
	     "\t\t\t\t       sizeof(%s_DESCRIPTOR) - 1);\n", d->uname, d->uname);
	for (size_t i = 0; i < m->nparams; i++) {
		const struct fi_param *p = &m->params[i];
		struct place pl;

		if (p->dir == FI_OUT)
			continue;
		if (p->type.kind == FI_PARCEL && !p->type.array) {
			emit("\tif (!fb_ret)\n\t\tfb_ret = %s_write(&fb_req, %s);\n",
			     p->type.decl->cname, p->name);
			continue;
		}
		place_of(&pl, "%s", "%s_len", p->name);
		emit_write("\t", "fb_ret", "&fb_req", &p->type, &pl, false);
	}
	emit("\tif (!fb_ret)\n\t\tfb_ret = bl_call_async(fb_a, fb_p->handle, %s_CODE_%s, "
	     "&fb_req,\n\t\t\t\t       BL_NO_TIMEOUT, fb_complete_%s_%s, fb_c);\n",
	     d->uname, m->uname, c, mc);
	emit("\tbl_parcel_fini(&fb_req);\n\tif (fb_ret)\n\t\tfree(fb_c);\n"
	     "\treturn fb_ret;\n}\n\n");
}

static void server_method(const struct fi_decl *d, const struct fi_method *m)
{
	bool first = true;

	emit("static int32_t fb_do_%s_%s(const struct %s_ops *fb_ops, void *fb_self,\n"
	     "\t\tstruct bl_reader *fb_r, struct bl_parcel *fb_reply,\n"
	     "\t\tconst struct bl_call_info *fb_info)\n{\n",
	     d->cname, m->cname, d->cname);
	for (size_t i = 0; i < m->nparams; i++) {
		const struct fi_param *p = &m->params[i];

		decl_storage(&p->type, p->name, "\t", "", p->dir == FI_IN);
	}
	if (m->ret.kind != FI_VOID)
		decl_storage(&m->ret, "result", "\t", "fb_o_", false);
	emit("\tint32_t fb_st;\n\tint fb_ret = 0;\n\n");
	emit("\tif (!fb_ops->%s)\n\t\treturn -EOPNOTSUPP;\n", m->cname);
	for (size_t i = 0; i < m->nparams; i++) {
		struct place pl;

		place_of(&pl, "%s", "%s_len", m->params[i].name);
		emit_init("\t", &m->params[i].type, &pl);
	}
	if (m->ret.kind != FI_VOID) {
		struct place pl;

		place_of(&pl, "fb_o_%s", "fb_o_%s_len", "result");
		emit_init("\t", &m->ret, &pl);
	}
	for (size_t i = 0; i < m->nparams; i++) {
		const struct fi_param *p = &m->params[i];
		struct place pl;

		if (p->dir == FI_OUT)
			continue;
		place_of(&pl, "%s", "%s_len", p->name);
		emit_read("\t", "fb_r", "fb_info->ctx", &p->type, &pl,
			  p->dir == FI_IN ? RD_SERVER_IN : RD_COPY, first);
		first = false;
	}
	emit("\tif (!fb_ret && bl_reader_remaining(fb_r))\n\t\tfb_ret = -EBADMSG;\n");
	emit("\tif (fb_ret) {\n\t\tfb_st = fb_ret == -ENOMEM ? -ENOMEM : -EBADMSG;\n"
	     "\t\tgoto fb_out;\n\t}\n");
	emit("\tfb_st = fb_ops->%s(fb_self", m->cname);
	for (size_t i = 0; i < m->nparams; i++) {
		struct place pl;

		place_of(&pl, "%s", "%s_len", m->params[i].name);
		emit(", ");
		if (m->params[i].dir == FI_IN)
			emit_in_arg(&m->params[i].type, &pl);
		else
			emit_out_arg(&m->params[i].type, &pl);
	}
	if (m->ret.kind != FI_VOID) {
		struct place pl;

		place_of(&pl, "fb_o_%s", "fb_o_%s_len", "result");
		emit(", ");
		emit_out_arg(&m->ret, &pl);
	}
	emit(", fb_info);\n");
	bool has_out = m->ret.kind != FI_VOID;

	for (size_t i = 0; i < m->nparams; i++)
		has_out |= m->params[i].dir != FI_IN;
	if (has_out) {
		bool w_first = true;

		emit("\tif (!fb_st && fb_reply) {\n");
		if (m->ret.kind != FI_VOID) {
			struct place pl;

			place_of(&pl, "fb_o_%s", "fb_o_%s_len", "result");
			emit_write("\t\t", "fb_st", "fb_reply", &m->ret, &pl, true);
			w_first = false;
		}
		for (size_t i = 0; i < m->nparams; i++) {
			struct place pl;

			if (m->params[i].dir == FI_IN)
				continue;
			place_of(&pl, "%s", "%s_len", m->params[i].name);
			emit_write("\t\t", "fb_st", "fb_reply", &m->params[i].type, &pl,
				   w_first);
			w_first = false;
		}
		emit("\t\tif (fb_st)\n\t\t\tbl_parcel_reset(fb_reply);\n");
		emit("\t}\n");
	} else {
		emit("\t(void)fb_reply;\t/* nothing to reply */\n");
	}
	emit("fb_out:\n");
	for (size_t i = 0; i < m->nparams; i++) {
		const struct fi_param *p = &m->params[i];
		struct place pl;

		place_of(&pl, "%s", "%s_len", p->name);
		emit_free("\t", "fb_info->ctx", &p->type, &pl,
			  p->dir == FI_IN ? FR_SERVER_IN : FR_SERVER_OUT);
	}
	if (m->ret.kind != FI_VOID) {
		struct place pl;

		place_of(&pl, "fb_o_%s", "fb_o_%s_len", "result");
		emit_free("\t", "fb_info->ctx", &m->ret, &pl, FR_SERVER_OUT);
	}
	emit("\treturn fb_st;\n}\n\n");
}

static void source_interface(const struct fi_decl *d)
{
	const char *c = d->cname, *u = d->uname;

	emit("/* ---- interface %s: client ---- */\n\n", d->name);
	emit("int %s_proxy_wrap(struct bl_context *ctx, uint32_t handle,\n"
	     "\t\tstruct %s_proxy *out)\n{\n\tint ret;\n\n"
	     "\tif (!ctx || !out)\n\t\treturn -EINVAL;\n"
	     "\tret = handle ? bl_handle_acquire(ctx, handle) : 0;\n"
	     "\tif (ret)\n\t\treturn ret;\n"
	     "\tout->ctx = ctx;\n\tout->handle = handle;\n\treturn 0;\n}\n\n", c, c);
	emit("int %s_proxy_get(struct bl_context *ctx, const char *name, int timeout_ms,\n"
	     "\t\tstruct %s_proxy *out)\n{\n\tint ret;\n\n"
	     "\tif (!ctx || !out)\n\t\treturn -EINVAL;\n"
	     "\tret = bl_sm_get(ctx, name, timeout_ms, &out->handle);\n"
	     "\tif (!ret)\n\t\tout->ctx = ctx;\n\treturn ret;\n}\n\n", c, c);
	emit("void %s_proxy_release(struct %s_proxy *p)\n{\n"
	     "\tif (p && p->ctx && p->handle)\n\t\tbl_handle_release(p->ctx, p->handle);\n"
	     "\tif (p)\n\t\tp->ctx = NULL;\n}\n\n", c, c);
	for (size_t i = 0; i < d->nmethods; i++) {
		client_method(d, &d->methods[i]);
		if (!d->methods[i].oneway)
			client_async(d, &d->methods[i]);
	}
	emit("int %s_get_interface_version(const struct %s_proxy *p, int32_t *version)\n{\n"
	     "\tif (!p)\n\t\treturn -EINVAL;\n"
	     "\treturn fb_call_builtin(p->ctx, p->handle, %s_DESCRIPTOR, BL_IDL_CODE_VERSION,\n"
	     "\t\t\t       version, NULL);\n}\n\n", c, c, u);
	emit("int %s_get_interface_hash(const struct %s_proxy *p, char **hash)\n{\n"
	     "\tif (!p)\n\t\treturn -EINVAL;\n"
	     "\treturn fb_call_builtin(p->ctx, p->handle, %s_DESCRIPTOR, BL_IDL_CODE_HASH,\n"
	     "\t\t\t       NULL, hash);\n}\n\n", c, c, u);

	emit("/* ---- interface %s: server ---- */\n\n", d->name);
	for (size_t i = 0; i < d->nmethods; i++)
		server_method(d, &d->methods[i]);
	emit("int32_t %s_dispatch(const struct %s_ops *ops, void *self, uint32_t code,\n"
	     "\t\tstruct bl_reader *request, struct bl_parcel *reply,\n"
	     "\t\tconst struct bl_call_info *info)\n{\n"
	     "\tif (!ops || !request || !info)\n\t\treturn -EINVAL;\n"
	     "\tif (bl_reader_expect_string(request, %s_DESCRIPTOR,\n"
	     "\t\t\t\t    sizeof(%s_DESCRIPTOR) - 1))\n"
	     "\t\treturn -EPROTOTYPE;\n"
	     "\tswitch (code) {\n", c, c, u, u);
	for (size_t i = 0; i < d->nmethods; i++)
		emit("\tcase %s_CODE_%s:\n\t\treturn fb_do_%s_%s(ops, self, request, reply, info);\n",
		     u, d->methods[i].uname, c, d->methods[i].cname);
	if (d->version)
		emit("\tcase BL_IDL_CODE_VERSION:\n\tcase BL_IDL_CODE_HASH:\n"
		     "\t\treturn fb_builtin(code, request, reply, %s_VERSION, %s_HASH);\n",
		     u, u);
	emit("\tdefault:\n\t\treturn -EOPNOTSUPP;\n\t}\n}\n\n");

	emit("struct fb_stub_%s {\n\tconst struct %s_ops *ops;\n\tvoid *self;\n"
	     "\tvoid (*destroy)(void *self);\n};\n\n", c, c);
	emit("static int32_t fb_handler_%s(struct bl_object *obj, uint32_t code,\n"
	     "\t\tstruct bl_reader *request, struct bl_parcel *reply,\n"
	     "\t\tconst struct bl_call_info *info)\n{\n"
	     "\tconst struct fb_stub_%s *s = bl_object_userdata(obj);\n\n"
	     "\treturn %s_dispatch(s->ops, s->self, code, request, reply, info);\n}\n\n",
	     c, c, c);
	emit("static void fb_destroy_%s(struct bl_object *obj)\n{\n"
	     "\tstruct fb_stub_%s *s = bl_object_userdata(obj);\n\n"
	     "\tif (s->destroy)\n\t\ts->destroy(s->self);\n\tfree(s);\n}\n\n", c, c);
	emit("int %s_export(struct bl_context *ctx, const struct %s_ops *ops, void *self,\n"
	     "\t\tvoid (*destroy)(void *self), struct bl_object **out)\n{\n"
	     "\tstruct fb_stub_%s *s;\n\tint ret;\n\n"
	     "\tif (!ctx || !ops || !out)\n\t\treturn -EINVAL;\n"
	     "\ts = malloc(sizeof(*s));\n\tif (!s)\n\t\treturn -ENOMEM;\n"
	     "\ts->ops = ops;\n\ts->self = self;\n\ts->destroy = destroy;\n"
	     "\tret = bl_object_new(ctx, fb_handler_%s, fb_destroy_%s, s, out);\n"
	     "\tif (ret)\n\t\tfree(s);\n\treturn ret;\n}\n\n", c, c, c, c, c);
}

static void gen_source(const struct fi_file *f, const char *header_name)
{
	struct used u;

	find_used(f, &u);
	emit("// SPDX-License-Identifier: MIT\n");
	emit("/* Generated by fbidl %s from %s: do not edit. */\n", FBIDL_VERSION,
	     f->path);
	emit("#ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 200809L\n#endif\n");
	emit("#include <errno.h>\n#include <fcntl.h>\n#include <float.h>\n"
	     "#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\n");
	emit("#include \"%s\"\n\n", header_name);
	for (size_t i = 0; i < sizeof(prelude) / sizeof(prelude[0]); i++)
		emit("%s", prelude[i]);
	for (enum fi_kind k = FI_BYTE; k <= FI_BOOL; k++)
		scalar_helpers(k);
	for (enum fi_kind k = FI_BYTE; k <= FI_BOOL; k++)
		if (u.scalar_array[k])
			array_helpers(scalar_fn(k), scalar_ctype(k), NULL);
	for (size_t i = 0; i < f->ndecls; i++)
		if (f->decls[i]->what == FI_ENUMDECL)
			enum_helpers(f->decls[i]);
	for (size_t i = 0; i < f->ndecls; i++)
		if (f->decls[i]->what == FI_PARCELABLE)
			parcel_functions(f->decls[i]);
	for (size_t i = 0; i < f->ndecls; i++)
		if (f->decls[i]->what == FI_INTERFACE)
			source_interface(f->decls[i]);
}

int fi_generate(const struct fi_file *f, const char *header_name,
		const char *guard, FILE *h, FILE *c)
{
	out = h;
	gen_header(f, guard);
	out = c;
	gen_source(f, header_name);
	out = NULL;
	return ferror(h) || ferror(c) ? -1 : 0;
}
