/* SPDX-License-Identifier: MIT */
/*
 * fbidl.h - the interface compiler's parts: the parser (parse.c: lexer,
 * grammar and every check, docs/idl.md), which builds the tree below in an
 * arena, and the C generator (gen.c).  fbidl.c is the command.
 *
 * Errors are reported once, as "file:line:col: message" on the error stream
 * given to fi_parse(), and the parse fails as a whole: nothing half-checked
 * ever reaches the generator.
 */
#ifndef FBIDL_H
#define FBIDL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The generator's own version, in the generated files' first line. */
#define FBIDL_VERSION	"0.1"

/* The types of the language; see docs/idl.md for their C and wire mapping. */
enum fi_kind {
	FI_VOID,
	FI_BYTE,	/* int8_t, BL_TYPE_I8 */
	FI_CHAR,	/* uint16_t, BL_TYPE_U16 */
	FI_INT,		/* int32_t, BL_TYPE_I32 */
	FI_LONG,	/* int64_t, BL_TYPE_I64 */
	FI_FLOAT,	/* float, BL_TYPE_DOUBLE holding a float's value */
	FI_DOUBLE,	/* double, BL_TYPE_DOUBLE */
	FI_BOOL,	/* bool, BL_TYPE_BOOL */
	FI_STRING,	/* char *, BL_TYPE_STRING */
	FI_FD,		/* int, BL_TYPE_FD */
	FI_REGION,	/* uint32_t region handle, BL_TYPE_OBJECT */
	FI_BINDER,	/* struct bl_binder: an interface (or IBinder) */
	FI_ENUM,	/* the enum's C enum, its backing scalar on the wire */
	FI_PARCEL,	/* struct NAME, a nested BL_TYPE_ARRAY of its fields */
};

enum fi_dir { FI_IN, FI_OUT, FI_INOUT };

struct fi_decl;

struct fi_type {
	enum fi_kind kind;
	bool array;		/* T[]: byte[] is a blob, others a BL_TYPE_ARRAY */
	const char *name;	/* as written (for messages) */
	struct fi_decl *decl;	/* FI_ENUM, FI_PARCEL, FI_BINDER (NULL: IBinder) */
	int line, col;
};

struct fi_param {
	const char *name;
	enum fi_dir dir;
	struct fi_type type;
	int line, col;
};

struct fi_method {
	const char *name;	/* as declared */
	const char *cname;	/* snake_case */
	const char *uname;	/* SNAKE_CASE */
	bool oneway;
	struct fi_type ret;	/* FI_VOID: none */
	struct fi_param *params;
	size_t nparams;
	uint32_t code;
	int line, col;
};

enum fi_lit { FI_LIT_INT, FI_LIT_FLOAT, FI_LIT_STRING, FI_LIT_BOOL };

struct fi_const {
	const char *name;
	const char *uname;	/* SNAKE_CASE */
	struct fi_type type;
	enum fi_lit lit;
	int64_t i;		/* FI_LIT_INT, FI_LIT_BOOL */
	double d;		/* FI_LIT_FLOAT */
	const char *text;	/* the literal as written (floats), or the string */
	int line, col;
};

struct fi_field {
	const char *name;
	struct fi_type type;
	int line, col;
};

struct fi_enumerator {
	const char *name;
	const char *uname;	/* SNAKE_CASE */
	int64_t value;
	int line, col;
};

enum fi_what { FI_INTERFACE, FI_PARCELABLE, FI_ENUMDECL };

struct fi_decl {
	enum fi_what what;
	const char *name;	/* as declared: ICalculator */
	const char *cname;	/* C prefix: calculator */
	const char *uname;	/* upper-case prefix: CALCULATOR */
	int line, col;
	struct fi_const *consts;
	size_t nconsts;
	/* interface */
	bool oneway;
	uint32_t version;	/* @version(N); 0: not a stable interface */
	const char *descriptor;	/* @descriptor("..."); NULL: package.Name */
	struct fi_method *methods;
	size_t nmethods;
	/* parcelable */
	struct fi_field *fields;
	size_t nfields;
	int visit;		/* the order check's mark */
	/* enum */
	enum fi_kind backing;	/* FI_BYTE (default), FI_INT or FI_LONG */
	struct fi_enumerator *items;
	size_t nitems;
};

struct fi_file {
	const char *path;
	const char *package;	/* NULL: none */
	struct fi_decl **decls;	/* parcelables before their users */
	size_t ndecls;
	struct fi_arena *arena;
};

/*
 * Parses and checks the text of path (len bytes at src).  Returns the tree
 * (free with fi_free()), or NULL after printing one "path:line:col: message"
 * to err (NULL after an allocation failure too, with a message).
 */
struct fi_file *fi_parse(const char *path, const char *src, size_t len,
			 FILE *err);
void fi_free(struct fi_file *f);

/* Reads path and parses it; NULL after a message on err. */
struct fi_file *fi_parse_file(const char *path, FILE *err);

/* The descriptor token of an interface: "package.Name" or "Name". */
const char *fi_descriptor(const struct fi_file *f, const struct fi_decl *d);

/* The stable hash of an interface: 16 lower-case hex digits. */
void fi_hash(const struct fi_file *f, const struct fi_decl *d, char out[17]);

/* Finds a declaration by name; NULL if none. */
struct fi_decl *fi_find(const struct fi_file *f, const char *name);

/*
 * Writes the header (to h, included by the source as header_name) and the
 * source (to c).  Returns 0, or -1 if a write failed.
 */
int fi_generate(const struct fi_file *f, const char *header_name,
		const char *guard, FILE *h, FILE *c);

#endif /* FBIDL_H */
