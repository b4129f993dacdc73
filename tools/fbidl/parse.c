// SPDX-License-Identifier: MIT
/*
 * parse.c - fbidl's lexer, parser and checks (the language: docs/idl.md).
 *
 * Everything the tree holds lives in one arena, so an error anywhere just
 * unwinds (longjmp) to fi_parse(), which frees the arena: no partial tree
 * ever escapes, and no error path leaks.  The first error ends the parse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fbidl.h"

/* ---- the arena ----------------------------------------------------------- */

struct fi_arena {
	struct fi_arena *next;
	size_t used, size;
	max_align_t data[];
};

enum tok_kind { T_EOF, T_IDENT, T_INT, T_FLOAT, T_STRING, T_PUNCT };

struct token {
	enum tok_kind kind;
	const char *text;	/* identifier, string value, or literal text */
	uint64_t ival;
	double fval;
	char punct;
	int line, col;
};

struct parser {
	const char *path;
	const char *src;
	size_t len, pos;
	int line, col;
	FILE *err;
	jmp_buf fail;
	struct fi_file *file;
	struct token tok;	/* the current token */
};

static void *arena_alloc(struct parser *ps, size_t n);

static void fail_at(struct parser *ps, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));

static void fail_at(struct parser *ps, int line, int col, const char *fmt, ...)
{
	va_list ap;

	fprintf(ps->err, "%s:%d:%d: ", ps->path, line, col);
	va_start(ap, fmt);
	vfprintf(ps->err, fmt, ap);
	va_end(ap);
	fputc('\n', ps->err);
	longjmp(ps->fail, 1);
}

static void *arena_alloc(struct parser *ps, size_t n)
{
	struct fi_arena *a = ps->file->arena;
	size_t need = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) *
		      sizeof(max_align_t);
	void *p;

	if (!a || a->size - a->used < need) {
		size_t size = need > 65536 ? need : 65536;

		a = calloc(1, sizeof(*a) + size);
		if (!a) {
			fprintf(ps->err, "%s: out of memory\n", ps->path);
			longjmp(ps->fail, 1);
		}
		a->size = size;
		a->next = ps->file->arena;
		ps->file->arena = a;
	}
	p = (char *)a->data + a->used;
	a->used += need;
	return p;
}

static char *arena_strndup(struct parser *ps, const char *s, size_t n)
{
	char *d = arena_alloc(ps, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* Grows *arr (of *n elements of size each) by one zeroed element. */
static void *grow(struct parser *ps, void *arr, size_t *n, size_t size)
{
	void *bigger = arena_alloc(ps, (*n + 1) * size);

	if (*n)
		memcpy(bigger, arr, *n * size);
	memset((char *)bigger + *n * size, 0, size);
	(*n)++;
	return bigger;
}

void fi_free(struct fi_file *f)
{
	struct fi_arena *a, *later;

	if (!f)
		return;
	for (a = f->arena; a; a = later) {
		later = a->next;
		free(a);
	}
	free(f);
}

/* ---- the lexer ------------------------------------------------------------ */

static int cur(const struct parser *ps)
{
	return ps->pos < ps->len ? (unsigned char)ps->src[ps->pos] : -1;
}

static int at(const struct parser *ps, size_t off)
{
	return ps->pos + off < ps->len ? (unsigned char)ps->src[ps->pos + off] : -1;
}

static void advance(struct parser *ps)
{
	if (ps->src[ps->pos] == '\n') {
		ps->line++;
		ps->col = 1;
	} else {
		ps->col++;
	}
	ps->pos++;
}

static bool is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void skip_space(struct parser *ps)
{
	for (;;) {
		int c = cur(ps);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			advance(ps);
		} else if (c == '/' && at(ps, 1) == '/') {
			while (cur(ps) != -1 && cur(ps) != '\n')
				advance(ps);
		} else if (c == '/' && at(ps, 1) == '*') {
			int line = ps->line, col = ps->col;

			advance(ps);
			advance(ps);
			while (!(cur(ps) == '*' && at(ps, 1) == '/')) {
				if (cur(ps) == -1)
					fail_at(ps, line, col, "unterminated comment");
				advance(ps);
			}
			advance(ps);
			advance(ps);
		} else {
			return;
		}
	}
}

static void lex_number(struct parser *ps, struct token *t)
{
	size_t start = ps->pos;
	bool is_float = false;
	uint64_t v = 0;

	if (cur(ps) == '0' && (at(ps, 1) == 'x' || at(ps, 1) == 'X')) {
		advance(ps);
		advance(ps);
		if (!is_hex(cur(ps)))
			fail_at(ps, t->line, t->col, "malformed number");
		while (is_hex(cur(ps))) {
			int c = cur(ps), d = is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;

			if (v >> 60)
				fail_at(ps, t->line, t->col, "integer literal too large");
			v = v << 4 | (uint64_t)d;
			advance(ps);
		}
	} else {
		while (is_digit(cur(ps))) {
			uint64_t d = (uint64_t)(cur(ps) - '0');

			if (v > (UINT64_MAX - d) / 10)
				fail_at(ps, t->line, t->col, "integer literal too large");
			v = v * 10 + d;
			advance(ps);
		}
		if (cur(ps) == '.' && is_digit(at(ps, 1))) {
			is_float = true;
			advance(ps);
			while (is_digit(cur(ps)))
				advance(ps);
		}
		if (cur(ps) == 'e' || cur(ps) == 'E') {
			is_float = true;
			advance(ps);
			if (cur(ps) == '+' || cur(ps) == '-')
				advance(ps);
			if (!is_digit(cur(ps)))
				fail_at(ps, t->line, t->col, "malformed number");
			while (is_digit(cur(ps)))
				advance(ps);
		}
	}
	t->text = arena_strndup(ps, ps->src + start, ps->pos - start);
	if (is_float) {
		t->kind = T_FLOAT;
		t->fval = strtod(t->text, NULL);
		if (cur(ps) == 'f' || cur(ps) == 'F' || cur(ps) == 'd' || cur(ps) == 'D')
			advance(ps);
	} else {
		t->kind = T_INT;
		t->ival = v;
		if (cur(ps) == 'l' || cur(ps) == 'L')
			advance(ps);
	}
	if (is_ident_start(cur(ps)) || is_digit(cur(ps)))
		fail_at(ps, t->line, t->col, "malformed number");
}

static void lex_string(struct parser *ps, struct token *t)
{
	char *buf;
	size_t n = 0, cap = 64;

	buf = arena_alloc(ps, cap);
	advance(ps);			/* the opening quote */
	for (;;) {
		int c = cur(ps);

		if (c == -1 || c == '\n')
			fail_at(ps, t->line, t->col, "unterminated string");
		if (c == '"') {
			advance(ps);
			break;
		}
		if (c == '\\') {
			advance(ps);
			switch (cur(ps)) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case '\\': c = '\\'; break;
			case '"': c = '"'; break;
			default:
				fail_at(ps, ps->line, ps->col - 1,
					"unknown escape sequence in string");
			}
		} else if (c < 0x20 || c == 0x7f) {
			fail_at(ps, ps->line, ps->col,
				"control character in string");
		}
		if (n + 2 > cap) {
			char *bigger = arena_alloc(ps, cap * 2);

			memcpy(bigger, buf, n);
			buf = bigger;
			cap *= 2;
		}
		buf[n++] = (char)c;
		advance(ps);
	}
	buf[n] = '\0';
	/* the C side passes strings through bl_parcel_write_string: UTF-8 */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] >= 0x80)
			fail_at(ps, t->line, t->col,
				"string constants must be ASCII");
	t->kind = T_STRING;
	t->text = buf;
}

static void lex(struct parser *ps, struct token *t)
{
	int c;

	skip_space(ps);
	memset(t, 0, sizeof(*t));
	t->line = ps->line;
	t->col = ps->col;
	c = cur(ps);
	if (c == -1) {
		t->kind = T_EOF;
		t->text = "end of file";
	} else if (is_ident_start(c)) {
		size_t start = ps->pos;

		while (is_ident_start(cur(ps)) || is_digit(cur(ps)))
			advance(ps);
		t->kind = T_IDENT;
		if (ps->pos - start > 64)
			fail_at(ps, t->line, t->col,
				"identifier too long (at most 64 characters)");
		t->text = arena_strndup(ps, ps->src + start, ps->pos - start);
	} else if (is_digit(c)) {
		lex_number(ps, t);
	} else if (c == '"') {
		lex_string(ps, t);
	} else if (strchr("{}()[];,=<>@.-", c)) {
		t->kind = T_PUNCT;
		t->punct = (char)c;
		t->text = arena_strndup(ps, ps->src + ps->pos, 1);
		advance(ps);
	} else {
		if (c >= 0x21 && c < 0x7f)
			fail_at(ps, t->line, t->col, "unexpected character '%c'", c);
		fail_at(ps, t->line, t->col, "unexpected byte 0x%02x", c);
	}
}

static void next(struct parser *ps)
{
	lex(ps, &ps->tok);
}

static const char *describe(const struct token *t)
{
	switch (t->kind) {
	case T_EOF:
		return "end of file";
	case T_STRING:
		return "a string";
	default:
		return t->text;
	}
}

static bool is_punct(const struct parser *ps, char c)
{
	return ps->tok.kind == T_PUNCT && ps->tok.punct == c;
}

static bool is_word(const struct parser *ps, const char *w)
{
	return ps->tok.kind == T_IDENT && !strcmp(ps->tok.text, w);
}

static void expect_punct(struct parser *ps, char c)
{
	if (!is_punct(ps, c))
		fail_at(ps, ps->tok.line, ps->tok.col, "expected '%c', got '%s'", c,
			describe(&ps->tok));
	next(ps);
}

static const char *const c_reserved[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do",
	"double", "else", "enum", "extern", "float", "for", "goto", "if",
	"inline", "int", "long", "register", "restrict", "return", "short",
	"signed", "sizeof", "static", "struct", "switch", "typedef", "union",
	"unsigned", "void", "volatile", "while", "bool", "true", "false",
	"errno", "NULL", "self", "info",
	/* what the generated code calls */
	"free", "malloc", "calloc", "memset", "memcpy", "memcmp", "close",
	"fcntl",
	/* the language's own words */
	"in", "out", "inout", "oneway", "interface", "parcelable", "package",
	"import", "String", "byte", "boolean",
};

/* An identifier that becomes a C name: not a keyword, not ours (fb_). */
static const char *expect_name(struct parser *ps, const char *what)
{
	const char *n;

	if (ps->tok.kind != T_IDENT)
		fail_at(ps, ps->tok.line, ps->tok.col, "expected %s, got '%s'",
			what, describe(&ps->tok));
	n = ps->tok.text;
	for (size_t i = 0; i < sizeof(c_reserved) / sizeof(c_reserved[0]); i++)
		if (!strcmp(n, c_reserved[i]))
			fail_at(ps, ps->tok.line, ps->tok.col,
				"'%s' is a reserved word", n);
	if (!strncmp(n, "fb_", 3) || !strncmp(n, "FB_", 3) || n[0] == '_')
		fail_at(ps, ps->tok.line, ps->tok.col,
			"'%s' is a reserved name (fb_ and _ are the generated code's)", n);
	next(ps);
	return n;
}

/* ---- names -------------------------------------------------------------- */

/* getValue -> get_value, HTTPServer -> http_server; ICalc -> calc (upper: CALC) */
static const char *snake(struct parser *ps, const char *name, bool drop_i,
			 bool upper)
{
	size_t n = strlen(name), o = 0;
	char *s = arena_alloc(ps, 2 * n + 1);
	size_t i = 0;

	if (drop_i && n > 1 && name[0] == 'I' && name[1] >= 'A' && name[1] <= 'Z')
		i = 1;
	for (size_t start = i; i < n; i++) {
		char c = name[i];
		bool up = c >= 'A' && c <= 'Z';

		if (up && i > start && o && s[o - 1] != '_') {
			char prev = name[i - 1];
			bool prev_low = (prev >= 'a' && prev <= 'z') || is_digit(prev);
			bool next_low = i + 1 < n && name[i + 1] >= 'a' && name[i + 1] <= 'z';

			if (prev_low || (next_low && prev >= 'A' && prev <= 'Z'))
				s[o++] = '_';
		}
		if (upper)
			s[o++] = (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
		else
			s[o++] = up ? (char)(c + 32) : c;
	}
	s[o] = '\0';
	return s;
}

/* ---- types ------------------------------------------------------------- */

static const struct {
	const char *name;
	enum fi_kind kind;
} builtin_types[] = {
	{ "void", FI_VOID }, { "byte", FI_BYTE }, { "char", FI_CHAR },
	{ "int", FI_INT }, { "long", FI_LONG }, { "float", FI_FLOAT },
	{ "double", FI_DOUBLE }, { "boolean", FI_BOOL }, { "String", FI_STRING },
	{ "FileDescriptor", FI_FD }, { "ParcelFileDescriptor", FI_FD },
	{ "MemoryRegion", FI_REGION }, { "IBinder", FI_BINDER },
};

static const char *const unsupported_types[][2] = {
	{ "List", "List<T> is not supported; use T[]" },
	{ "Map", "Map is not supported" },
	{ "CharSequence", "CharSequence is not supported; use String" },
	{ "short", "unknown type 'short'; use int" },
};

static void parse_type(struct parser *ps, struct fi_type *t)
{
	const char *n;
	size_t i;

	memset(t, 0, sizeof(*t));
	t->line = ps->tok.line;
	t->col = ps->tok.col;
	if (ps->tok.kind != T_IDENT)
		fail_at(ps, t->line, t->col, "expected a type, got '%s'",
			describe(&ps->tok));
	n = ps->tok.text;
	t->name = n;
	for (i = 0; i < sizeof(unsupported_types) / sizeof(unsupported_types[0]); i++)
		if (!strcmp(n, unsupported_types[i][0]))
			fail_at(ps, t->line, t->col, "%s", unsupported_types[i][1]);
	t->kind = FI_PARCEL;		/* a named type: resolved later */
	for (i = 0; i < sizeof(builtin_types) / sizeof(builtin_types[0]); i++)
		if (!strcmp(n, builtin_types[i].name))
			t->kind = builtin_types[i].kind;
	next(ps);
	if (is_punct(ps, '.'))
		fail_at(ps, ps->tok.line, ps->tok.col,
			"qualified type names are not supported (one file, no imports)");
	if (is_punct(ps, '<'))
		fail_at(ps, ps->tok.line, ps->tok.col, "generic types are not supported");
	if (is_punct(ps, '[')) {
		next(ps);
		if (ps->tok.kind == T_INT)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"fixed-size arrays are not supported");
		expect_punct(ps, ']');
		t->array = true;
		if (is_punct(ps, '['))
			fail_at(ps, ps->tok.line, ps->tok.col,
				"arrays of arrays are not supported");
	}
}

static const char *kind_name(enum fi_kind k)
{
	switch (k) {
	case FI_VOID: return "void";
	case FI_BYTE: return "byte";
	case FI_CHAR: return "char";
	case FI_INT: return "int";
	case FI_LONG: return "long";
	case FI_FLOAT: return "float";
	case FI_DOUBLE: return "double";
	case FI_BOOL: return "boolean";
	case FI_STRING: return "String";
	case FI_FD: return "FileDescriptor";
	case FI_REGION: return "MemoryRegion";
	case FI_BINDER: return "an interface";
	case FI_ENUM: return "an enum";
	case FI_PARCEL: return "a parcelable";
	}
	return "?";
}

/* ---- annotations ---------------------------------------------------------- */

struct annotations {
	bool has_version;
	uint64_t version;
	int vline, vcol;
	const char *descriptor;
	int dline, dcol;
	bool has_backing;
	enum fi_kind backing;
	int bline, bcol;
};

static void parse_annotations(struct parser *ps, struct annotations *a)
{
	memset(a, 0, sizeof(*a));
	while (is_punct(ps, '@')) {
		int line = ps->tok.line, col = ps->tok.col;
		const char *n;

		next(ps);
		if (ps->tok.kind != T_IDENT)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"expected an annotation name, got '%s'",
				describe(&ps->tok));
		n = ps->tok.text;
		next(ps);
		if (!strcmp(n, "version")) {
			expect_punct(ps, '(');
			if (ps->tok.kind != T_INT)
				fail_at(ps, ps->tok.line, ps->tok.col,
					"expected a version number, got '%s'",
					describe(&ps->tok));
			if (ps->tok.ival < 1 || ps->tok.ival > INT32_MAX)
				fail_at(ps, ps->tok.line, ps->tok.col,
					"the version must be 1 to 2147483647");
			a->has_version = true;
			a->version = ps->tok.ival;
			a->vline = line;
			a->vcol = col;
			next(ps);
			expect_punct(ps, ')');
		} else if (!strcmp(n, "descriptor")) {
			expect_punct(ps, '(');
			if (ps->tok.kind != T_STRING)
				fail_at(ps, ps->tok.line, ps->tok.col,
					"expected a string, got '%s'", describe(&ps->tok));
			if (!ps->tok.text[0] || strlen(ps->tok.text) > 256)
				fail_at(ps, ps->tok.line, ps->tok.col,
					"a descriptor is 1 to 256 characters");
			a->descriptor = ps->tok.text;
			a->dline = line;
			a->dcol = col;
			next(ps);
			expect_punct(ps, ')');
		} else if (!strcmp(n, "Backing")) {
			expect_punct(ps, '(');
			if (!is_word(ps, "type"))
				fail_at(ps, ps->tok.line, ps->tok.col,
					"expected 'type', got '%s'", describe(&ps->tok));
			next(ps);
			expect_punct(ps, '=');
			if (ps->tok.kind != T_STRING)
				fail_at(ps, ps->tok.line, ps->tok.col,
					"expected a string, got '%s'", describe(&ps->tok));
			if (!strcmp(ps->tok.text, "byte"))
				a->backing = FI_BYTE;
			else if (!strcmp(ps->tok.text, "int"))
				a->backing = FI_INT;
			else if (!strcmp(ps->tok.text, "long"))
				a->backing = FI_LONG;
			else
				fail_at(ps, ps->tok.line, ps->tok.col,
					"an enum's backing type is byte, int or long");
			a->has_backing = true;
			a->bline = line;
			a->bcol = col;
			next(ps);
			expect_punct(ps, ')');
		} else if (!strcmp(n, "nullable") || !strcmp(n, "utf8InCpp") ||
			   !strcmp(n, "VintfStability") || !strcmp(n, "JavaOnlyStableParcelable")) {
			fail_at(ps, line, col, "annotation @%s is not supported", n);
		} else {
			fail_at(ps, line, col, "unknown annotation @%s", n);
		}
	}
}

/* ---- constants -------------------------------------------------------- */

static void check_range(struct parser *ps, const struct fi_const *k, int64_t lo,
			int64_t hi)
{
	if (k->i < lo || k->i > hi)
		fail_at(ps, k->line, k->col, "constant %s is out of range for %s",
			k->name, kind_name(k->type.kind));
}

/* An integer, possibly negative: into *v; the token must be T_INT. */
static int64_t parse_int_value(struct parser *ps, bool neg)
{
	uint64_t u = ps->tok.ival;

	if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX) {
		/* hex literals may spell a negative long's bits, as in Java */
		if (!neg && ps->tok.text[0] == '0' && ps->tok.text[1] != '\0')
			return (int64_t)u;
		fail_at(ps, ps->tok.line, ps->tok.col, "integer literal too large");
	}
	if (neg)
		return u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
	return (int64_t)u;
}

static void parse_const(struct parser *ps, struct fi_const *k)
{
	bool neg = false;

	k->line = ps->tok.line;
	k->col = ps->tok.col;
	next(ps);			/* const */
	parse_type(ps, &k->type);
	k->name = expect_name(ps, "a constant name");
	expect_punct(ps, '=');
	if (is_punct(ps, '-')) {
		neg = true;
		next(ps);
	}
	if (k->type.array)
		fail_at(ps, k->type.line, k->type.col,
			"array constants are not supported");
	switch (k->type.kind) {
	case FI_BYTE: case FI_CHAR: case FI_INT: case FI_LONG:
		if (ps->tok.kind != T_INT)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"constant %s needs an integer value", k->name);
		k->lit = FI_LIT_INT;
		k->i = parse_int_value(ps, neg);
		if (k->type.kind == FI_BYTE)
			check_range(ps, k, INT8_MIN, INT8_MAX);
		else if (k->type.kind == FI_CHAR)
			check_range(ps, k, 0, UINT16_MAX);
		else if (k->type.kind == FI_INT)
			check_range(ps, k, INT32_MIN, INT32_MAX);
		break;
	case FI_FLOAT: case FI_DOUBLE:
		if (ps->tok.kind != T_FLOAT && ps->tok.kind != T_INT)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"constant %s needs a number", k->name);
		k->lit = FI_LIT_FLOAT;
		k->text = ps->tok.text;
		k->d = ps->tok.kind == T_FLOAT ? ps->tok.fval : (double)ps->tok.ival;
		if (neg) {
			char *t = arena_alloc(ps, strlen(k->text) + 2);

			t[0] = '-';
			strcpy(t + 1, k->text);
			k->text = t;
			k->d = -k->d;
		}
		break;
	case FI_BOOL:
		if (neg || !(is_word(ps, "true") || is_word(ps, "false")))
			fail_at(ps, ps->tok.line, ps->tok.col,
				"constant %s needs true or false", k->name);
		k->lit = FI_LIT_BOOL;
		k->i = is_word(ps, "true");
		break;
	case FI_STRING:
		if (neg || ps->tok.kind != T_STRING)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"constant %s needs a string", k->name);
		k->lit = FI_LIT_STRING;
		k->text = ps->tok.text;
		break;
	default:
		fail_at(ps, k->type.line, k->type.col,
			"a constant cannot be of type %s", k->type.name);
	}
	next(ps);
	expect_punct(ps, ';');
}

/* ---- declarations --------------------------------------------------------- */

static void parse_method(struct parser *ps, struct fi_decl *d, bool oneway)
{
	struct fi_method *m;

	d->methods = grow(ps, d->methods, &d->nmethods, sizeof(*d->methods));
	m = &d->methods[d->nmethods - 1];
	m->line = ps->tok.line;
	m->col = ps->tok.col;
	m->oneway = oneway || d->oneway;
	parse_type(ps, &m->ret);
	m->name = expect_name(ps, "a method name");
	expect_punct(ps, '(');
	while (!is_punct(ps, ')')) {
		struct fi_param *p;
		struct annotations a;

		if (m->nparams)
			expect_punct(ps, ',');
		parse_annotations(ps, &a);
		if (a.has_version || a.has_backing || a.descriptor)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"this annotation does not apply to a parameter");
		m->params = grow(ps, m->params, &m->nparams, sizeof(*m->params));
		p = &m->params[m->nparams - 1];
		p->line = ps->tok.line;
		p->col = ps->tok.col;
		p->dir = FI_IN;
		if (is_word(ps, "in")) {
			next(ps);
		} else if (is_word(ps, "out")) {
			p->dir = FI_OUT;
			next(ps);
		} else if (is_word(ps, "inout")) {
			p->dir = FI_INOUT;
			next(ps);
		}
		parse_type(ps, &p->type);
		if (p->type.kind == FI_VOID)
			fail_at(ps, p->type.line, p->type.col,
				"a parameter cannot be void");
		p->name = expect_name(ps, "a parameter name");
	}
	next(ps);
	if (is_punct(ps, '=')) {
		next(ps);
		if (ps->tok.kind != T_INT)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"expected a method code, got '%s'", describe(&ps->tok));
		if (ps->tok.ival < 1 || ps->tok.ival > 0xfffffc)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"method code %s is out of range (1 to 16777212)",
				ps->tok.text);
		m->code = (uint32_t)ps->tok.ival;
		next(ps);
	}
	expect_punct(ps, ';');
}

static void parse_interface(struct parser *ps, struct fi_decl *d)
{
	next(ps);			/* interface */
	d->name = expect_name(ps, "an interface name");
	expect_punct(ps, '{');
	while (!is_punct(ps, '}')) {
		struct annotations a;

		if (ps->tok.kind == T_EOF)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"expected '}', got end of file");
		parse_annotations(ps, &a);
		if (a.has_version || a.has_backing || a.descriptor)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"this annotation does not apply to a method");
		if (is_word(ps, "const")) {
			d->consts = grow(ps, d->consts, &d->nconsts, sizeof(*d->consts));
			parse_const(ps, &d->consts[d->nconsts - 1]);
		} else if (is_word(ps, "oneway")) {
			next(ps);
			parse_method(ps, d, true);
		} else if (is_word(ps, "interface") || is_word(ps, "parcelable") ||
			   is_word(ps, "enum")) {
			fail_at(ps, ps->tok.line, ps->tok.col,
				"nested declarations are not supported");
		} else {
			parse_method(ps, d, false);
		}
	}
	next(ps);
}

static void parse_parcelable(struct parser *ps, struct fi_decl *d)
{
	next(ps);			/* parcelable */
	d->name = expect_name(ps, "a parcelable name");
	if (is_punct(ps, ';'))
		fail_at(ps, ps->tok.line, ps->tok.col,
			"unstructured parcelables are not supported; declare the fields");
	expect_punct(ps, '{');
	while (!is_punct(ps, '}')) {
		struct fi_field *f;
		struct annotations a;

		if (ps->tok.kind == T_EOF)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"expected '}', got end of file");
		parse_annotations(ps, &a);
		if (a.has_version || a.has_backing || a.descriptor)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"this annotation does not apply to a field");
		if (is_word(ps, "const")) {
			d->consts = grow(ps, d->consts, &d->nconsts, sizeof(*d->consts));
			parse_const(ps, &d->consts[d->nconsts - 1]);
			continue;
		}
		d->fields = grow(ps, d->fields, &d->nfields, sizeof(*d->fields));
		f = &d->fields[d->nfields - 1];
		f->line = ps->tok.line;
		f->col = ps->tok.col;
		parse_type(ps, &f->type);
		f->name = expect_name(ps, "a field name");
		if (is_punct(ps, '='))
			fail_at(ps, ps->tok.line, ps->tok.col,
				"default values of fields are not supported");
		expect_punct(ps, ';');
	}
	next(ps);
	if (!d->nfields)
		fail_at(ps, d->line, d->col, "parcelable %s has no fields", d->name);
}

static void parse_enum(struct parser *ps, struct fi_decl *d)
{
	int64_t value = 0;
	bool first = true;

	next(ps);			/* enum */
	d->name = expect_name(ps, "an enum name");
	expect_punct(ps, '{');
	while (!is_punct(ps, '}')) {
		struct fi_enumerator *e;

		if (!first) {
			expect_punct(ps, ',');
			if (is_punct(ps, '}'))
				break;
		}
		d->items = grow(ps, d->items, &d->nitems, sizeof(*d->items));
		e = &d->items[d->nitems - 1];
		e->line = ps->tok.line;
		e->col = ps->tok.col;
		e->name = expect_name(ps, "an enumerator");
		if (is_punct(ps, '=')) {
			bool neg = false;

			next(ps);
			if (is_punct(ps, '-')) {
				neg = true;
				next(ps);
			}
			if (ps->tok.kind != T_INT)
				fail_at(ps, ps->tok.line, ps->tok.col,
					"expected an integer, got '%s'",
					describe(&ps->tok));
			value = parse_int_value(ps, neg);
			next(ps);
		} else if (!first && value == INT64_MAX) {
			fail_at(ps, e->line, e->col,
				"enumerator %s is out of range", e->name);
		} else if (!first) {
			value++;
		}
		e->value = value;
		first = false;
	}
	next(ps);
	if (!d->nitems)
		fail_at(ps, d->line, d->col, "enum %s has no enumerators", d->name);
}

/* ---- checks ---------------------------------------------------------------- */

struct fi_decl *fi_find(const struct fi_file *f, const char *name)
{
	for (size_t i = 0; i < f->ndecls; i++)
		if (!strcmp(f->decls[i]->name, name))
			return f->decls[i];
	return NULL;
}

static void resolve(struct parser *ps, struct fi_type *t)
{
	struct fi_decl *d;

	if (t->kind != FI_PARCEL || t->decl)
		return;
	d = fi_find(ps->file, t->name);
	if (!d)
		fail_at(ps, t->line, t->col, "unknown type '%s'", t->name);
	t->decl = d;
	if (d->what == FI_INTERFACE)
		t->kind = FI_BINDER;
	else if (d->what == FI_ENUMDECL)
		t->kind = FI_ENUM;
}

static bool scalar(enum fi_kind k)
{
	return k >= FI_BYTE && k <= FI_BOOL;
}

static void check_array(struct parser *ps, const struct fi_type *t)
{
	if (t->array && !scalar(t->kind) && t->kind != FI_ENUM &&
	    t->kind != FI_PARCEL)
		fail_at(ps, t->line, t->col, "arrays of %s are not supported",
			kind_name(t->kind));
}

static void check_method(struct parser *ps, struct fi_decl *d, struct fi_method *m)
{
	resolve(ps, &m->ret);
	if (m->ret.kind == FI_VOID && m->ret.array)
		fail_at(ps, m->ret.line, m->ret.col, "void[] is not a type");
	check_array(ps, &m->ret);
	if (m->oneway && m->ret.kind != FI_VOID)
		fail_at(ps, m->ret.line, m->ret.col,
			"oneway method %s must return void", m->name);
	for (size_t i = 0; i < m->nparams; i++) {
		struct fi_param *p = &m->params[i];

		resolve(ps, &p->type);
		check_array(ps, &p->type);
		if (m->oneway && p->dir != FI_IN)
			fail_at(ps, p->line, p->col,
				"oneway method %s cannot have out or inout parameters",
				m->name);
		if (p->dir == FI_INOUT && !p->type.array &&
		    (p->type.kind == FI_FD || p->type.kind == FI_REGION ||
		     p->type.kind == FI_BINDER))
			fail_at(ps, p->line, p->col,
				"inout is not supported for %s", kind_name(p->type.kind));
		for (size_t j = 0; j < m->nparams; j++) {
			size_t l = strlen(m->params[j].name);

			if (j < i && !strcmp(m->params[j].name, p->name))
				fail_at(ps, p->line, p->col,
					"parameter %s is declared twice", p->name);
			if (m->params[j].type.array &&
			    !strncmp(p->name, m->params[j].name, l) &&
			    !strcmp(p->name + l, "_len"))
				fail_at(ps, p->line, p->col,
					"%s clashes with the length of array %s",
					p->name, m->params[j].name);
		}
	}
	(void)d;
}

static void check_codes(struct parser *ps, struct fi_decl *d)
{
	size_t explicit = 0;

	for (size_t i = 0; i < d->nmethods; i++)
		explicit += d->methods[i].code != 0;
	if (explicit && explicit != d->nmethods) {
		for (size_t i = 0; i < d->nmethods; i++)
			if (!d->methods[i].code)
				fail_at(ps, d->methods[i].line, d->methods[i].col,
					"method %s has no code: give every method of %s a code, or none",
					d->methods[i].name, d->name);
	}
	for (size_t i = 0; i < d->nmethods; i++) {
		struct fi_method *m = &d->methods[i];

		if (!explicit)
			m->code = (uint32_t)i + 1;	/* declaration order */
		for (size_t j = 0; j < i; j++) {
			if (d->methods[j].code == m->code)
				fail_at(ps, m->line, m->col,
					"method %s has the same code as %s",
					m->name, d->methods[j].name);
		}
	}
}

/* A parcelable's fields come first: depth-first, cycles refused. */
static void order_parcel(struct parser *ps, struct fi_decl *d,
			 struct fi_decl **out, size_t *n)
{
	if (d->visit == 2)
		return;
	if (d->visit == 1)
		fail_at(ps, d->line, d->col, "parcelable %s contains itself", d->name);
	d->visit = 1;
	for (size_t i = 0; i < d->nfields; i++)
		if (d->fields[i].type.kind == FI_PARCEL)
			order_parcel(ps, d->fields[i].type.decl, out, n);
	d->visit = 2;
	out[(*n)++] = d;
}

/* Two declarations whose generated C names would be the same. */
static void check_names(struct parser *ps)
{
	struct fi_file *f = ps->file;

	for (size_t i = 0; i < f->ndecls; i++) {
		const struct fi_decl *d = f->decls[i];

		for (size_t j = 0; j < i; j++) {
			if (!strcmp(f->decls[j]->name, d->name))
				fail_at(ps, d->line, d->col,
					"%s is declared twice", d->name);
			if (!strcmp(f->decls[j]->cname, d->cname))
				fail_at(ps, d->line, d->col,
					"%s and %s both become '%s' in C",
					f->decls[j]->name, d->name, d->cname);
		}
		for (size_t j = 0; j < d->nmethods; j++) {
			const char *cn = d->methods[j].cname;
			static const char *const generated[] = {
				"export", "dispatch", "ops", "proxy", "code",
				"get_interface_version", "get_interface_hash",
			};

			for (size_t k = 0; k < sizeof(generated) / sizeof(generated[0]); k++)
				if (!strcmp(cn, generated[k]) ||
				    (!strncmp(cn, generated[k], strlen(generated[k])) &&
				     cn[strlen(generated[k])] == '_'))
					fail_at(ps, d->methods[j].line, d->methods[j].col,
						"method name %s clashes with the generated %s_%s",
						d->methods[j].name, d->cname, generated[k]);
			for (size_t k = 0; k < j; k++) {
				const char *other = d->methods[k].cname;
				size_t lo = strlen(other);

				if (!strcmp(d->methods[k].name, d->methods[j].name))
					fail_at(ps, d->methods[j].line, d->methods[j].col,
						"method %s is declared twice (overloading is not supported)",
						d->methods[j].name);
				if (!strcmp(other, cn) ||
				    (!strncmp(cn, other, lo) && !strcmp(cn + lo, "_timeout")))
					fail_at(ps, d->methods[j].line, d->methods[j].col,
						"methods %s and %s clash in C (%s_%s)",
						d->methods[k].name, d->methods[j].name,
						d->cname, cn);
			}
		}
		for (size_t j = 0; j < d->nconsts; j++)
			for (size_t k = 0; k < j; k++)
				if (!strcmp(d->consts[j].name, d->consts[k].name))
					fail_at(ps, d->consts[j].line, d->consts[j].col,
						"constant %s is declared twice",
						d->consts[j].name);
		for (size_t j = 0; j < d->nfields; j++)
			for (size_t k = 0; k < d->nfields; k++) {
				const struct fi_field *a = &d->fields[j], *b = &d->fields[k];
				size_t l = strlen(b->name);

				if (k < j && !strcmp(a->name, b->name))
					fail_at(ps, a->line, a->col,
						"field %s is declared twice", a->name);
				if (b->type.array && !strncmp(a->name, b->name, l) &&
				    !strcmp(a->name + l, "_len"))
					fail_at(ps, a->line, a->col,
						"%s clashes with the length of array %s",
						a->name, b->name);
			}
		for (size_t j = 0; j < d->nitems; j++)
			for (size_t k = 0; k < j; k++)
				if (!strcmp(d->items[j].name, d->items[k].name))
					fail_at(ps, d->items[j].line, d->items[j].col,
						"enumerator %s is declared twice",
						d->items[j].name);
	}
}

static void check_file(struct parser *ps)
{
	struct fi_file *f = ps->file;
	struct fi_decl **ordered;
	size_t n = 0;

	check_names(ps);
	for (size_t i = 0; i < f->ndecls; i++) {
		struct fi_decl *d = f->decls[i];

		for (size_t j = 0; j < d->nfields; j++) {
			struct fi_field *fl = &d->fields[j];

			resolve(ps, &fl->type);
			check_array(ps, &fl->type);
			if (fl->type.kind == FI_FD || fl->type.kind == FI_REGION ||
			    fl->type.kind == FI_BINDER)
				fail_at(ps, fl->type.line, fl->type.col,
					"a parcelable field cannot be %s (pass it as a parameter)",
					kind_name(fl->type.kind));
			if (fl->type.kind == FI_VOID)
				fail_at(ps, fl->type.line, fl->type.col,
					"a field cannot be void");
		}
		for (size_t j = 0; j < d->nmethods; j++)
			check_method(ps, d, &d->methods[j]);
		check_codes(ps, d);
		if (d->what == FI_ENUMDECL) {
			int64_t lo = d->backing == FI_BYTE ? INT8_MIN :
				     d->backing == FI_INT ? INT32_MIN : INT64_MIN;
			int64_t hi = d->backing == FI_BYTE ? INT8_MAX :
				     d->backing == FI_INT ? INT32_MAX : INT64_MAX;

			for (size_t j = 0; j < d->nitems; j++) {
				if (d->items[j].value < lo || d->items[j].value > hi)
					fail_at(ps, d->items[j].line, d->items[j].col,
						"enumerator %s is out of range for %s",
						d->items[j].name, kind_name(d->backing));
				if (d->items[j].value < INT_MIN || d->items[j].value > INT_MAX)
					fail_at(ps, d->items[j].line, d->items[j].col,
						"enumerator %s does not fit a C enum (int)",
						d->items[j].name);
			}
		}
	}
	/* parcelables in dependency order, then the rest as declared */
	ordered = arena_alloc(ps, (f->ndecls + 1) * sizeof(*ordered));
	for (size_t i = 0; i < f->ndecls; i++)
		if (f->decls[i]->what == FI_ENUMDECL)
			ordered[n++] = f->decls[i];
	for (size_t i = 0; i < f->ndecls; i++)
		if (f->decls[i]->what == FI_PARCELABLE)
			order_parcel(ps, f->decls[i], ordered, &n);
	for (size_t i = 0; i < f->ndecls; i++)
		if (f->decls[i]->what == FI_INTERFACE)
			ordered[n++] = f->decls[i];
	f->decls = ordered;
}

static void parse_file(struct parser *ps)
{
	struct fi_file *f = ps->file;

	next(ps);
	if (is_word(ps, "package")) {
		next(ps);
		if (ps->tok.kind != T_IDENT)
			fail_at(ps, ps->tok.line, ps->tok.col,
				"expected a package name, got '%s'", describe(&ps->tok));
		{
			char buf[512];
			size_t n = 0;

			for (;;) {
				size_t l = strlen(ps->tok.text);

				if (ps->tok.kind != T_IDENT)
					fail_at(ps, ps->tok.line, ps->tok.col,
						"expected a package name, got '%s'",
						describe(&ps->tok));
				if (n + l + 2 > sizeof(buf))
					fail_at(ps, ps->tok.line, ps->tok.col,
						"package name too long");
				memcpy(buf + n, ps->tok.text, l);
				n += l;
				next(ps);
				if (!is_punct(ps, '.'))
					break;
				buf[n++] = '.';
				next(ps);
			}
			f->package = arena_strndup(ps, buf, n);
		}
		expect_punct(ps, ';');
	}
	while (ps->tok.kind != T_EOF) {
		struct annotations a;
		struct fi_decl *d;

		if (is_word(ps, "import"))
			fail_at(ps, ps->tok.line, ps->tok.col,
				"imports are not supported: declare every type in this file");
		if (is_word(ps, "package"))
			fail_at(ps, ps->tok.line, ps->tok.col,
				"the package must come first, once");
		parse_annotations(ps, &a);
		d = arena_alloc(ps, sizeof(*d));
		memset(d, 0, sizeof(*d));
		d->line = ps->tok.line;
		d->col = ps->tok.col;
		d->backing = FI_BYTE;
		if (is_word(ps, "oneway")) {
			next(ps);
			if (!is_word(ps, "interface"))
				fail_at(ps, ps->tok.line, ps->tok.col,
					"expected 'interface', got '%s'", describe(&ps->tok));
			d->oneway = true;
		}
		if (is_word(ps, "interface")) {
			d->what = FI_INTERFACE;
			if (a.has_backing)
				fail_at(ps, a.bline, a.bcol, "@Backing applies to enums");
			d->version = (uint32_t)a.version;
			d->descriptor = a.descriptor;
			parse_interface(ps, d);
		} else if (is_word(ps, "parcelable")) {
			d->what = FI_PARCELABLE;
			if (a.descriptor)
				fail_at(ps, a.dline, a.dcol, "@descriptor applies to interfaces");
			if (a.has_version || a.has_backing)
				fail_at(ps, a.has_version ? a.vline : a.bline,
					a.has_version ? a.vcol : a.bcol,
					"this annotation does not apply to a parcelable");
			parse_parcelable(ps, d);
		} else if (is_word(ps, "enum")) {
			d->what = FI_ENUMDECL;
			if (a.has_version)
				fail_at(ps, a.vline, a.vcol, "@version applies to interfaces");
			if (a.descriptor)
				fail_at(ps, a.dline, a.dcol, "@descriptor applies to interfaces");
			if (a.has_backing)
				d->backing = a.backing;
			parse_enum(ps, d);
		} else {
			fail_at(ps, ps->tok.line, ps->tok.col,
				"expected 'interface', 'parcelable' or 'enum', got '%s'",
				describe(&ps->tok));
		}
		d->cname = snake(ps, d->name, d->what == FI_INTERFACE, false);
		d->uname = snake(ps, d->name, d->what == FI_INTERFACE, true);
		for (size_t i = 0; i < d->nmethods; i++) {
			d->methods[i].cname = snake(ps, d->methods[i].name, false, false);
			d->methods[i].uname = snake(ps, d->methods[i].name, false, true);
		}
		for (size_t i = 0; i < d->nconsts; i++)
			d->consts[i].uname = snake(ps, d->consts[i].name, false, true);
		for (size_t i = 0; i < d->nitems; i++)
			d->items[i].uname = snake(ps, d->items[i].name, false, true);
		f->decls = grow(ps, f->decls, &f->ndecls, sizeof(*f->decls));
		f->decls[f->ndecls - 1] = d;
	}
	if (!f->ndecls)
		fail_at(ps, ps->tok.line, ps->tok.col,
			"no interface, parcelable or enum in the file");
	check_file(ps);
}

/* 0, or -1 after an error was printed; no local changes after setjmp */
static int run(struct parser *ps)
{
	if (setjmp(ps->fail))
		return -1;
	if (memchr(ps->src, '\0', ps->len))
		fail_at(ps, 1, 1, "the file contains a NUL byte");
	parse_file(ps);
	return 0;
}

struct fi_file *fi_parse(const char *path, const char *src, size_t len,
			 FILE *err)
{
	struct parser *ps = calloc(1, sizeof(*ps));
	struct fi_file *f = calloc(1, sizeof(*f));

	if (!ps || !f) {
		fprintf(err, "%s: out of memory\n", path);
		free(ps);
		free(f);
		return NULL;
	}
	ps->path = path;
	ps->src = src;
	ps->len = len;
	ps->line = 1;
	ps->col = 1;
	ps->err = err;
	ps->file = f;
	f->path = path;
	if (run(ps)) {
		fi_free(f);
		f = NULL;
	}
	free(ps);
	return f;
}

struct fi_file *fi_parse_file(const char *path, FILE *err)
{
	FILE *in = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	struct fi_file *f;

	if (!in) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			char *bigger;

			if (cap >= (size_t)16 << 20) {
				fprintf(err, "%s: file too large\n", path);
				goto fail;
			}
			cap = cap ? cap * 2 : 4096;
			bigger = realloc(buf, cap);
			if (!bigger) {
				fprintf(err, "%s: out of memory\n", path);
				goto fail;
			}
			buf = bigger;
		}
		got = fread(buf + len, 1, cap - len, in);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(in)) {
		fprintf(err, "%s: read error\n", path);
		goto fail;
	}
	fclose(in);
	f = fi_parse(path, buf ? buf : "", len, err);
	free(buf);
	return f;
fail:
	fclose(in);
	free(buf);
	return NULL;
}

/* ---- descriptor and hash ---------------------------------------------------- */

const char *fi_descriptor(const struct fi_file *f, const struct fi_decl *d)
{
	static char buf[600];	/* names are at most 64 bytes: it fits */

	if (d->descriptor)
		return d->descriptor;
	if (f->package)
		snprintf(buf, sizeof(buf), "%s.%s", f->package, d->name);
	else
		snprintf(buf, sizeof(buf), "%s", d->name);
	return buf;
}

struct hasher {
	uint64_t h;
};

static void hash_str(struct hasher *hs, const char *s)
{
	for (; *s; s++)
		hs->h = (hs->h ^ (unsigned char)*s) * 0x100000001b3ull;
	hs->h = (hs->h ^ 0xff) * 0x100000001b3ull;	/* separator */
}

static void hash_num(struct hasher *hs, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	hash_str(hs, buf);
}

static void hash_type(struct hasher *hs, const struct fi_type *t)
{
	hash_str(hs, kind_name(t->kind));
	hash_str(hs, t->array ? "[]" : "");
	if (t->kind == FI_ENUM) {
		const struct fi_decl *d = t->decl;

		hash_str(hs, d->name);
		hash_str(hs, kind_name(d->backing));
		for (size_t i = 0; i < d->nitems; i++) {
			hash_str(hs, d->items[i].name);
			hash_num(hs, d->items[i].value);
		}
	} else if (t->kind == FI_PARCEL) {
		const struct fi_decl *d = t->decl;

		hash_str(hs, d->name);
		for (size_t i = 0; i < d->nfields; i++) {
			hash_type(hs, &d->fields[i].type);
			hash_str(hs, d->fields[i].name);
		}
		hash_str(hs, "}");
	} else if (t->kind == FI_BINDER) {
		/* by descriptor only: an interface's own changes are its own */
		hash_str(hs, t->decl ? t->decl->name : "IBinder");
	}
}

void fi_hash(const struct fi_file *f, const struct fi_decl *d, char out[17])
{
	struct hasher hs = { 0xcbf29ce484222325ull };

	hash_str(&hs, fi_descriptor(f, d));
	hash_num(&hs, d->version);
	for (size_t i = 0; i < d->nmethods; i++) {
		const struct fi_method *m = &d->methods[i];

		hash_num(&hs, m->code);
		hash_str(&hs, m->oneway ? "oneway" : "");
		hash_type(&hs, &m->ret);
		hash_str(&hs, m->name);
		for (size_t j = 0; j < m->nparams; j++) {
			hash_num(&hs, m->params[j].dir);
			hash_type(&hs, &m->params[j].type);
			hash_str(&hs, m->params[j].name);
		}
	}
	snprintf(out, 17, "%016llx", (unsigned long long)hs.h);
}
