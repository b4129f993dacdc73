// SPDX-License-Identifier: MIT
/*
 * fbservice - list, check, wait for and call fastbinder services, in the
 * spirit of Android's "service" command.
 *
 * SYNOPSIS
 *	fbservice [-d DEVICE] list
 *	fbservice [-d DEVICE] check NAME
 *	fbservice [-d DEVICE] wait NAME [TIMEOUT_MS]
 *	fbservice [-d DEVICE] stats
 *	fbservice [-d DEVICE] [-t TIMEOUT_MS] call NAME CODE [TYPE VALUE]...
 *	fbservice [-d DEVICE] [-t TIMEOUT_MS] call --idl FILE NAME METHOD [VALUE]...
 *
 * DESCRIPTION
 *	list	prints the registered names, one per line, sorted.
 *	check	prints "NAME: found" or "NAME: not found"; never waits.
 *	wait	waits until NAME is registered (bl_sm_get()), forever or at
 *		most TIMEOUT_MS milliseconds, then prints "NAME: found".
 *		It waits for the manager's notice (a watch), not by asking
 *		again.
 *	stats	prints the manager's counts, "KEY VALUE" a line: names,
 *		watches, requests, notices, notices_lost (bl_sm_stats()).
 *	call	looks NAME up (no waiting), calls method CODE with the
 *		arguments written in order, and prints the reply: the
 *		handler's status, then every item of the reply by its type
 *		tag, nested arrays indented:
 *			status 0
 *			  [0] i64 13
 *			  [1] string "hi\n"
 *		Argument types: i32 i64 u32 u64 (decimal, 0x hex, 0 octal),
 *		f64 (a double), str or s16 (a UTF-8 string; s16 is Android's
 *		name for it), bool (0|1|true|false), blob (hex digits).
 *		With --idl FILE, the method is named and typed by an
 *		interface file (docs/idl.md): the request starts with the
 *		interface's descriptor token, the code is the method's, and
 *		each VALUE is the next in or inout parameter, parsed as its
 *		type (numbers, true/false, text, an enumerator's name or
 *		value, hex digits for byte[], comma-separated scalars for
 *		other arrays); a oneway method is sent, not called.
 *
 * EXIT STATUS
 *	0  success: list printed, name found, call made with status 0
 *	1  the operation failed: name not registered (check), not
 *	   registered in time (wait), the call failed (service died, timed
 *	   out, refused the message), its status was not 0 (the reply is
 *	   still printed), or its reply was malformed
 *	2  usage error: unknown command, bad argument or number
 *	3  fastbinder unusable: the device cannot be opened (module not
 *	   loaded, no such device, permission denied), the driver speaks
 *	   another ABI, or no service manager answers
 *	Errors go to stderr, results to stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binderlite.h"
#include "fbidl.h"
#include "fbtool.h"

/* the exit statuses every fastbinder program shares (fbtool.h) */
enum {
	EXIT_OK = FBTOOL_EXIT_OK,
	EXIT_FAILED = FBTOOL_EXIT_FAILED,
	EXIT_USAGE = FBTOOL_EXIT_USAGE,
	EXIT_NO_BINDER = FBTOOL_EXIT_UNAVAILABLE,
};

#define DEFAULT_CALL_TIMEOUT_MS	10000
/* How long "is there a service manager at all?" may take to answer. */
#define PROBE_TIMEOUT_MS	2000

static void usage(FILE *f)
{
	fprintf(f,
"usage: fbservice [-d DEVICE] list\n"
"       fbservice [-d DEVICE] check NAME\n"
"       fbservice [-d DEVICE] wait NAME [TIMEOUT_MS]\n"
"       fbservice [-d DEVICE] stats\n"
"       fbservice [-d DEVICE] [-t TIMEOUT_MS] call NAME CODE [TYPE VALUE]...\n"
"       fbservice [-d DEVICE] [-t TIMEOUT_MS] call --idl FILE NAME METHOD [VALUE]...\n"
"\n"
"Talks to the services registered with fb-servicemanager.\n"
"  list             the registered names, one per line\n"
"  check NAME       is NAME registered? (no waiting)\n"
"  wait NAME [MS]   wait until NAME is registered (forever, or MS ms)\n"
"  stats            the manager's counts: names, watches, requests,\n"
"                   notices, notices_lost\n"
"  call NAME CODE   call method CODE of NAME with the arguments, print the\n"
"                   reply's status and every item of it, typed\n"
"  call --idl FILE NAME METHOD   the same, METHOD and the types of its in\n"
"                   and inout VALUEs taken from the interface FILE\n"
"Argument TYPEs: i32 i64 u32 u64 (decimal, 0x hex), f64, str or s16 (a\n"
"UTF-8 string), bool (0|1|true|false), blob (hex digits, e.g. 00ff).\n"
"  e.g. fbservice call calculator 1 str example.calc.ICalculator i64 6 i64 7\n"
"       fbservice call --idl calculator.fbidl calculator add 6 7\n"
"\n"
"Options:\n"
"  -d, --device PATH      the device (default %s)\n"
"  -t, --timeout MS       how long call waits for the reply (default %d;\n"
"                         -1: forever)\n"
"  -h, --help             this text\n"
"      --version          the release and ABI version\n"
"\n"
"Exit status:\n"
"  0  success (listed; found; counted; called and the status was 0)\n"
"  1  the operation failed: not registered, not registered in time, the\n"
"     call failed or timed out, its status was not 0 (reply still\n"
"     printed), or its reply was malformed\n"
"  2  usage error\n"
"  3  fastbinder unusable: module not loaded, no such device, permission\n"
"     denied, ABI mismatch, or no service manager running\n",
		BL_DEFAULT_DEVICE, DEFAULT_CALL_TIMEOUT_MS);
}

/* "EINVAL: Invalid argument", or "error 1234" for an unknown number. */
static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

/* ---- numbers ------------------------------------------------------------ */

static bool parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* strtoull accepts "-1" as ULLONG_MAX: refuse any sign */
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > max)
		return false;
	*out = v;
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* ---- the request ---------------------------------------------------------- */

/*
 * Appends "TYPE VALUE" to the request.  Returns 0, EXIT_USAGE after
 * printing what is wrong, or EXIT_FAILED when the parcel refused it.
 */
static int write_arg(struct bl_parcel *p, const char *type, const char *val)
{
	int64_t i;
	uint64_t u;
	int ret;

	if (!strcmp(type, "i32")) {
		if (!parse_i64(val, INT32_MIN, INT32_MAX, &i))
			return fbtool_usage_error("i32: '%s' is not a 32-bit integer", val);
		ret = bl_parcel_write_i32(p, (int32_t)i);
	} else if (!strcmp(type, "i64")) {
		if (!parse_i64(val, INT64_MIN, INT64_MAX, &i))
			return fbtool_usage_error("i64: '%s' is not a 64-bit integer", val);
		ret = bl_parcel_write_i64(p, i);
	} else if (!strcmp(type, "u32")) {
		if (!parse_u64(val, UINT32_MAX, &u))
			return fbtool_usage_error("u32: '%s' is not an unsigned 32-bit integer", val);
		ret = bl_parcel_write_u32(p, (uint32_t)u);
	} else if (!strcmp(type, "u64")) {
		if (!parse_u64(val, UINT64_MAX, &u))
			return fbtool_usage_error("u64: '%s' is not an unsigned 64-bit integer", val);
		ret = bl_parcel_write_u64(p, u);
	} else if (!strcmp(type, "f64")) {
		char *end;
		double d;

		errno = 0;
		d = strtod(val, &end);
		if (errno || end == val || *end)
			return fbtool_usage_error("f64: '%s' is not a number", val);
		ret = bl_parcel_write_double(p, d);
	} else if (!strcmp(type, "str") || !strcmp(type, "s16")) {
		ret = bl_parcel_write_string(p, val);
		if (ret == -EINVAL)
			return fbtool_usage_error("%s: not valid UTF-8", type);
	} else if (!strcmp(type, "bool")) {
		bool b;

		if (!strcmp(val, "1") || !strcmp(val, "true"))
			b = true;
		else if (!strcmp(val, "0") || !strcmp(val, "false"))
			b = false;
		else
			return fbtool_usage_error("bool: '%s' is not 0, 1, true or false", val);
		ret = bl_parcel_write_bool(p, b);
	} else if (!strcmp(type, "blob")) {
		size_t n = strlen(val), k;
		void *buf;
		uint8_t *b;

		if (n % 2)
			return fbtool_usage_error("blob: odd number of hex digits");
		for (k = 0; k < n; k++)
			if (hexval(val[k]) < 0)
				return fbtool_usage_error("blob: '%c' is not a hex digit", val[k]);
		ret = bl_parcel_alloc_blob(p, n / 2, &buf);
		if (!ret) {
			b = buf;
			for (k = 0; k < n / 2; k++)
				b[k] = (uint8_t)(hexval(val[2 * k]) << 4 |
						 hexval(val[2 * k + 1]));
		}
	} else {
		return fbtool_usage_error("unknown argument type '%s' "
				   "(i32 i64 u32 u64 f64 str s16 bool blob)", type);
	}
	if (ret) {
		fbtool_err("cannot write the %s argument: %s", type, strerror(-ret));
		return EXIT_FAILED;
	}
	return 0;
}

/* ---- a request typed by an interface file (--idl) --------------------------- */

/* One scalar or enum VALUE of type t (not an array). */
static int write_idl_scalar(struct bl_parcel *p, const struct fi_type *t,
			    const char *what, const char *val)
{
	int64_t i;
	int ret;

	switch (t->kind) {
	case FI_BYTE:
		if (!parse_i64(val, INT8_MIN, INT8_MAX, &i))
			return fbtool_usage_error("%s: '%s' is not a byte", what, val);
		ret = bl_parcel_write_i8(p, (int8_t)i);
		break;
	case FI_CHAR:
		if (!parse_i64(val, 0, UINT16_MAX, &i))
			return fbtool_usage_error("%s: '%s' is not a char (0..65535)", what, val);
		ret = bl_parcel_write_u16(p, (uint16_t)i);
		break;
	case FI_INT:
		if (!parse_i64(val, INT32_MIN, INT32_MAX, &i))
			return fbtool_usage_error("%s: '%s' is not an int", what, val);
		ret = bl_parcel_write_i32(p, (int32_t)i);
		break;
	case FI_LONG:
		if (!parse_i64(val, INT64_MIN, INT64_MAX, &i))
			return fbtool_usage_error("%s: '%s' is not a long", what, val);
		ret = bl_parcel_write_i64(p, i);
		break;
	case FI_FLOAT:
	case FI_DOUBLE: {
		char *end;
		double d;

		errno = 0;
		d = strtod(val, &end);
		if (errno || end == val || *end)
			return fbtool_usage_error("%s: '%s' is not a number", what, val);
		if (t->kind == FI_FLOAT)
			d = (float)d;
		ret = bl_parcel_write_double(p, d);
		break;
	}
	case FI_BOOL:
		if (strcmp(val, "true") && strcmp(val, "false") && strcmp(val, "1") &&
		    strcmp(val, "0"))
			return fbtool_usage_error("%s: '%s' is not true or false", what, val);
		ret = bl_parcel_write_bool(p, !strcmp(val, "true") || !strcmp(val, "1"));
		break;
	case FI_ENUM: {
		const struct fi_decl *e = t->decl;
		size_t k;

		for (k = 0; k < e->nitems; k++)
			if (!strcmp(val, e->items[k].name))
				break;
		if (k == e->nitems) {
			if (!parse_i64(val, INT64_MIN, INT64_MAX, &i))
				return fbtool_usage_error("%s: '%s' is not a %s", what, val,
							  e->name);
			for (k = 0; k < e->nitems; k++)
				if (e->items[k].value == i)
					break;
			if (k == e->nitems)
				return fbtool_usage_error("%s: %s has no value %s", what,
							  e->name, val);
		}
		i = e->items[k].value;
		ret = e->backing == FI_BYTE ? bl_parcel_write_i8(p, (int8_t)i) :
		      e->backing == FI_INT ? bl_parcel_write_i32(p, (int32_t)i) :
		      bl_parcel_write_i64(p, i);
		break;
	}
	default:
		return fbtool_usage_error("%s: a %s cannot be given on the command line",
					  what, t->name);
	}
	if (ret) {
		fbtool_err("cannot write %s: %s", what, strerror(-ret));
		return EXIT_FAILED;
	}
	return 0;
}

/* One VALUE of parameter type t: scalars, String, byte[] (hex), arrays (a,b,c). */
static int write_idl_arg(struct bl_parcel *p, const struct fi_type *t,
			 const char *what, const char *val)
{
	struct fi_type elem = *t;
	char *copy, *item, *save = NULL;
	int ret, rc = 0;

	if (t->kind == FI_STRING && !t->array) {
		ret = bl_parcel_write_string(p, val);
		if (ret == -EINVAL)
			return fbtool_usage_error("%s: not valid UTF-8", what);
		return ret ? EXIT_FAILED : 0;
	}
	if (t->kind == FI_BYTE && t->array)
		return write_arg(p, "blob", val);
	if (!t->array)
		return write_idl_scalar(p, t, what, val);
	if (t->kind == FI_PARCEL)
		return fbtool_usage_error("%s: a %s[] cannot be given on the command line",
					  what, t->name);
	elem.array = false;
	copy = strdup(val);
	if (!copy || bl_parcel_begin_array(p)) {
		free(copy);
		fbtool_err("out of memory");
		return EXIT_FAILED;
	}
	for (item = strtok_r(copy, ",", &save); item && !rc;
	     item = strtok_r(NULL, ",", &save))
		rc = write_idl_scalar(p, &elem, what, item);
	free(copy);
	if (!rc && bl_parcel_end_array(p))
		rc = EXIT_FAILED;
	return rc;
}

/*
 * The request of METHOD with values[0..n): *code, *oneway, the token and
 * the arguments in req.  METHOD is a method's name, or IFACE.method when
 * several interfaces of the file have it.
 */
static int idl_request(const char *file, const char *method, char **values,
		       int n, struct bl_parcel *req, uint32_t *code, bool *oneway)
{
	const struct fi_method *m = NULL;
	const struct fi_decl *iface = NULL;
	const char *dot = strchr(method, '.');
	struct fi_file *f = fi_parse_file(file, stderr);
	int rc = 0, wanted = 0, k = 0;

	if (!f)
		return EXIT_USAGE;
	for (size_t i = 0; i < f->ndecls; i++) {
		const struct fi_decl *d = f->decls[i];

		if (d->what != FI_INTERFACE)
			continue;
		if (dot && (strncmp(d->name, method, (size_t)(dot - method)) ||
			    d->name[dot - method]))
			continue;
		for (size_t j = 0; j < d->nmethods; j++) {
			if (strcmp(d->methods[j].name, dot ? dot + 1 : method))
				continue;
			if (m) {
				fi_free(f);
				return fbtool_usage_error("%s is a method of %s and %s: "
							  "say which, as %s.%s", method,
							  iface->name, d->name, d->name,
							  method);
			}
			m = &d->methods[j];
			iface = d;
		}
	}
	if (!m) {
		fi_free(f);
		return fbtool_usage_error("%s: no method %s", file, method);
	}
	for (size_t j = 0; j < m->nparams; j++)
		wanted += m->params[j].dir != FI_OUT;
	if (n != wanted) {
		fbtool_usage_error("%s takes %d value%s, not %d", method, wanted,
				   wanted == 1 ? "" : "s", n);
		fi_free(f);
		return EXIT_USAGE;
	}
	*code = m->code;
	*oneway = m->oneway;
	if (bl_parcel_write_string(req, fi_descriptor(f, iface)))
		rc = EXIT_FAILED;
	for (size_t j = 0; j < m->nparams && !rc; j++) {
		if (m->params[j].dir == FI_OUT)
			continue;
		rc = write_idl_arg(req, &m->params[j].type, m->params[j].name,
				   values[k++]);
	}
	fi_free(f);
	return rc;
}

/* ---- printing the reply ---------------------------------------------------- */

static void print_string(const char *s, size_t len)
{
	putchar('"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':  fputs("\\\"", stdout); break;
		case '\\': fputs("\\\\", stdout); break;
		case '\n': fputs("\\n", stdout); break;
		case '\t': fputs("\\t", stdout); break;
		case '\r': fputs("\\r", stdout); break;
		default:
			/* UTF-8 (>= 0x80) as it is; other controls escaped */
			if (c < 0x20 || c == 0x7f)
				printf("\\x%02x", c);
			else
				putchar(c);
		}
	}
	putchar('"');
}

static void print_blob(const uint8_t *b, size_t len, int indent)
{
	printf("blob %zu bytes", len);
	for (size_t i = 0; i < len; i++) {
		if (i % 16 == 0)
			printf("\n%*s%04zx ", indent + 4, "", i);
		printf(" %02x", b[i]);
	}
}

/* The shortest of %.15g..%.17g that reads back as the same double. */
static void print_double(double v)
{
	char buf[40];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	printf("f64 %s", buf);
}

/* The file behind a descriptor we were given, for the reader's benefit. */
static void print_fd(int fd)
{
	char path[64], target[256];
	ssize_t n;

	printf("fd %d", fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		printf(" -> %s", target);
	}
}

/*
 * The integer types: each read into 64 bits by its own reader, then printed
 * by sign, the unsigned ones in hex too.
 */
#define INT_READER(name, ctype)						\
static int read_##name(struct bl_reader *r, uint64_t *v)		\
{									\
	ctype x;							\
	int ret = bl_reader_read_##name(r, &x);				\
									\
	*v = ret ? 0 : (uint64_t)x;					\
	return ret;							\
}
INT_READER(u8, uint8_t)
INT_READER(i8, int8_t)
INT_READER(u16, uint16_t)
INT_READER(i16, int16_t)
INT_READER(u32, uint32_t)
INT_READER(i32, int32_t)
INT_READER(u64, uint64_t)
INT_READER(i64, int64_t)

static const struct {
	int type;
	const char *name;
	bool is_signed;
	int (*read)(struct bl_reader *r, uint64_t *v);
} int_types[] = {
	{ BL_TYPE_U8, "u8", false, read_u8 },
	{ BL_TYPE_I8, "i8", true, read_i8 },
	{ BL_TYPE_U16, "u16", false, read_u16 },
	{ BL_TYPE_I16, "i16", true, read_i16 },
	{ BL_TYPE_U32, "u32", false, read_u32 },
	{ BL_TYPE_I32, "i32", true, read_i32 },
	{ BL_TYPE_U64, "u64", false, read_u64 },
	{ BL_TYPE_I64, "i64", true, read_i64 },
};

/* An integer item: printed, *ret the reader's result; false for another type. */
static bool print_int(struct bl_reader *r, int type, int *ret)
{
	uint64_t v;

	for (size_t k = 0; k < sizeof(int_types) / sizeof(int_types[0]); k++) {
		if (int_types[k].type != type)
			continue;
		*ret = int_types[k].read(r, &v);
		if (*ret)
			return true;
		if (int_types[k].is_signed)
			printf("%s %lld", int_types[k].name, (long long)(int64_t)v);
		else
			printf("%s %llu (0x%llx)", int_types[k].name,
			       (unsigned long long)v, (unsigned long long)v);
		return true;
	}
	return false;
}

/*
 * Prints every item of r, one per line, arrays nested.  Returns 0 at the
 * clean end of the range, else the reader's error (after printing where).
 */
static int print_items(struct bl_reader *r, int indent)
{
	for (unsigned int idx = 0;; idx++) {
		size_t pos = bl_reader_position(r);
		int type = bl_reader_peek_type(r);
		int ret = 0;

		if (type == -ENODATA)
			return 0;
		if (type < 0) {
			printf("%*s[%u] <malformed item at byte %zu: %s>\n",
			       indent, "", idx, pos, strerror(-type));
			return type;
		}
		printf("%*s[%u] ", indent, "", idx);
		if (print_int(r, type, &ret)) {
			/* an integer: printed (or ret says why not) */
		} else switch (type) {
		case BL_TYPE_BOOL: {
			bool v;

			if (!(ret = bl_reader_read_bool(r, &v)))
				printf("bool %s", v ? "true" : "false");
			break;
		}
		case BL_TYPE_DOUBLE: {
			double v;

			if (!(ret = bl_reader_read_double(r, &v)))
				print_double(v);
			break;
		}
		case BL_TYPE_STRING: {
			const char *s;
			size_t len;

			if (!(ret = bl_reader_read_string(r, &s, &len))) {
				printf("string ");
				print_string(s, len);
			}
			break;
		}
		case BL_TYPE_BLOB: {
			const void *b;
			size_t len;

			if (!(ret = bl_reader_read_blob(r, &b, &len)))
				print_blob(b, len, indent);
			break;
		}
		case BL_TYPE_OBJECT: {
			struct fbinder_object o;

			if (!(ret = bl_reader_read_object(r, &o))) {
				if (o.type == FBINDER_OBJ_HANDLE)
					printf("object handle %u", o.handle);
				else
					printf("object local cookie 0x%llx",
					       (unsigned long long)o.cookie);
			}
			break;
		}
		case BL_TYPE_FD: {
			int fd;

			/* the reply owns it: bl_reply_fini() closes it */
			if (!(ret = bl_reader_read_fd(r, &fd)))
				print_fd(fd);
			break;
		}
		case BL_TYPE_FD_ARRAY: {
			int fds[FBINDER_MAX_FDS];
			uint32_t n, k;

			/* the reply owns them too */
			if (!(ret = bl_reader_read_fd_array(r, fds, FBINDER_MAX_FDS, &n))) {
				printf("fd array of %u", n);
				for (k = 0; k < n; k++) {
					printf(k ? ", " : ": ");
					print_fd(fds[k]);
				}
			}
			break;
		}
		case BL_TYPE_ARRAY: {
			struct bl_reader sub;
			uint32_t count;

			ret = bl_reader_enter_array(r, &sub, &count);
			if (ret)
				break;
			printf("array %u items%s\n", count, count ? ":" : "");
			ret = print_items(&sub, indent + 4);
			if (ret)
				return ret;
			continue;
		}
		default:
			ret = -EBADMSG;
		}
		if (ret) {
			printf("<malformed item of type %d at byte %zu: %s>\n",
			       type, pos, strerror(-ret));
			return ret;
		}
		putchar('\n');
	}
}

/* ---- the commands --------------------------------------------------------- */

/*
 * After a wait timed out: is there a service manager at all?  (bl_sm_get()
 * also waits for one to start.)  One list request, bounded.
 */
static bool manager_answers(struct bl_context *ctx)
{
	struct bl_reply reply;
	int ret = bl_call(ctx, FBINDER_CONTEXT_MGR_HANDLE, BL_SM_LIST, NULL, &reply,
			  PROBE_TIMEOUT_MS);

	if (ret)
		return false;
	bl_reply_fini(&reply);
	return true;
}

static int no_manager(void)
{
	fbtool_err("no service manager answers (start fb-servicemanager)");
	return EXIT_NO_BINDER;
}

/* A lookup's failure, as a message and an exit status. */
static int lookup_failed(const char *name, int ret)
{
	if (ret == -EHOSTDOWN)
		return no_manager();
	if (ret == -ENOENT) {
		fbtool_err("%s: not found", name);
		return EXIT_FAILED;
	}
	if (ret == -EINVAL)
		return fbtool_usage_error("'%s' is not a valid service name "
				   "(1..%d of [A-Za-z0-9._/-])", name, BL_SM_NAME_MAX);
	if (ret == -ENXIO) {
		fbtool_err("%s: an object of this very process", name);
		return EXIT_FAILED;
	}
	fbtool_err("%s: lookup failed: %s", name, strerror(-ret));
	return ret == -ETIMEDOUT ? EXIT_FAILED : EXIT_NO_BINDER;
}

static int cmd_list(struct bl_context *ctx)
{
	char **names;
	size_t count;
	int ret = bl_sm_list(ctx, &names, &count);

	if (ret == -EHOSTDOWN)
		return no_manager();
	if (ret) {
		fbtool_err("list: %s", strerror(-ret));
		return EXIT_NO_BINDER;
	}
	for (size_t i = 0; i < count; i++)
		printf("%s\n", names[i]);
	bl_sm_list_free(names, count);
	return EXIT_OK;
}

static int cmd_check(struct bl_context *ctx, const char *name)
{
	uint32_t h;
	int ret = bl_sm_check(ctx, name, &h);

	if (ret == -ENOENT) {
		printf("%s: not found\n", name);
		return EXIT_FAILED;
	}
	if (ret)
		return lookup_failed(name, ret);
	bl_handle_release(ctx, h);
	printf("%s: found\n", name);
	return EXIT_OK;
}

static int cmd_wait(struct bl_context *ctx, const char *name, int timeout_ms)
{
	uint32_t h;
	int ret = bl_sm_get(ctx, name, timeout_ms, &h);

	if (ret == -ETIMEDOUT) {
		if (!manager_answers(ctx))
			return no_manager();
		fbtool_err("%s: not registered within %d ms", name, timeout_ms);
		return EXIT_FAILED;
	}
	if (ret)
		return lookup_failed(name, ret);
	bl_handle_release(ctx, h);
	printf("%s: found\n", name);
	return EXIT_OK;
}

static int cmd_stats(struct bl_context *ctx)
{
	struct bl_sm_stats st;
	int ret = bl_sm_stats(ctx, &st);

	if (ret == -EHOSTDOWN)
		return no_manager();
	if (ret == -EOPNOTSUPP) {
		fbtool_err("stats: the service manager does not count (an older one)");
		return EXIT_FAILED;
	}
	if (ret) {
		fbtool_err("stats: %s", strerror(-ret));
		return EXIT_NO_BINDER;
	}
	printf("names %u\nwatches %u\nrequests %llu\nnotices %llu\n"
	       "notices_lost %llu\n", st.names, st.watches,
	       (unsigned long long)st.requests, (unsigned long long)st.notices,
	       (unsigned long long)st.notices_lost);
	return EXIT_OK;
}

static int cmd_call(struct bl_context *ctx, const char *name, uint32_t code,
		    struct bl_parcel *req, int timeout_ms, bool oneway)
{
	struct bl_reply reply;
	uint32_t h;
	int ret, rc;

	ret = bl_sm_check(ctx, name, &h);
	if (ret)
		return lookup_failed(name, ret);
	if (oneway) {
		ret = bl_send_oneway(ctx, h, code, req);
		bl_handle_release(ctx, h);
		if (ret) {
			fbtool_err("%s: send failed: %s (%s)", name, strerror(-ret),
				   errname(-ret));
			return EXIT_FAILED;
		}
		printf("sent (oneway)\n");
		return EXIT_OK;
	}
	ret = bl_call(ctx, h, code, req, &reply, timeout_ms);
	bl_handle_release(ctx, h);
	if (ret) {
		if (ret == -EOWNERDEAD)
			fbtool_err("%s: the service died during the call", name);
		else if (ret == -ETIMEDOUT)
			fbtool_err("%s: no reply within %d ms", name, timeout_ms);
		else
			fbtool_err("%s: call failed: %s (%s)", name, strerror(-ret),
			    errname(-ret));
		return EXIT_FAILED;
	}
	if (reply.status == 0)
		printf("status 0\n");
	else if (reply.status < 0)
		printf("status %d (-%s: %s)\n", reply.status,
		       errname(-reply.status), strerror(-reply.status));
	else
		printf("status %d (the service's own code)\n", reply.status);
	rc = reply.status ? EXIT_FAILED : EXIT_OK;
	ret = print_items(&reply.reader, 2);
	if (ret) {
		fbtool_err("%s: malformed reply: %s", name, strerror(-ret));
		rc = EXIT_FAILED;
	}
	bl_reply_fini(&reply);
	return rc;
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct bl_parcel req = BL_PARCEL_INIT;
	int call_timeout = DEFAULT_CALL_TIMEOUT_MS;
	int wait_timeout = BL_NO_TIMEOUT;
	const char *device = NULL, *cmd, *name = NULL;
	struct bl_context *ctx;
	uint32_t code = 0;
	bool oneway = false;
	int64_t v;
	int c, ret, rc;

	fbtool_init("fbservice");
	/* "+": options only before the command, so "i32 -5" is an argument */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			device = optarg;
			break;
		case 't':
			if (!parse_i64(optarg, -1, INT_MAX, &v))
				return fbtool_usage_error("--timeout: '%s' is not -1 or a "
						   "number of milliseconds", optarg);
			call_timeout = (int)v;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			fbtool_version();
			return EXIT_OK;
		default:
			return fbtool_usage_error("unknown or incomplete option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return fbtool_usage_error("no command (list, check, wait, stats, call)");
	cmd = argv[optind++];
	argc -= optind;
	argv += optind;

	/* Check the whole command line before touching the device. */
	if (!strcmp(cmd, "list") || !strcmp(cmd, "stats")) {
		if (argc != 0)
			return fbtool_usage_error("%s takes no arguments", cmd);
	} else if (!strcmp(cmd, "check")) {
		if (argc != 1)
			return fbtool_usage_error("usage: check NAME");
		name = argv[0];
	} else if (!strcmp(cmd, "wait")) {
		if (argc != 1 && argc != 2)
			return fbtool_usage_error("usage: wait NAME [TIMEOUT_MS]");
		name = argv[0];
		if (argc == 2) {
			if (!parse_i64(argv[1], 0, INT_MAX, &v))
				return fbtool_usage_error("wait: '%s' is not a number of "
						   "milliseconds", argv[1]);
			wait_timeout = (int)v;
		}
	} else if (!strcmp(cmd, "call") && argc >= 1 && !strcmp(argv[0], "--idl")) {
		if (argc < 4)
			return fbtool_usage_error("usage: call --idl FILE NAME METHOD [VALUE]...");
		name = argv[2];
		rc = idl_request(argv[1], argv[3], argv + 4, argc - 4, &req, &code,
				 &oneway);
		if (rc) {
			bl_parcel_fini(&req);
			return rc;
		}
	} else if (!strcmp(cmd, "call")) {
		uint64_t u;

		if (argc < 2)
			return fbtool_usage_error("usage: call NAME CODE [TYPE VALUE]...");
		name = argv[0];
		if (!parse_u64(argv[1], UINT32_MAX, &u))
			return fbtool_usage_error("call: CODE '%s' is not an unsigned "
					   "32-bit number", argv[1]);
		code = (uint32_t)u;
		if (argc % 2)
			return fbtool_usage_error("call: '%s' has no value",
					   argv[argc - 1]);
		for (int i = 2; i < argc; i += 2) {
			rc = write_arg(&req, argv[i], argv[i + 1]);
			if (rc) {
				bl_parcel_fini(&req);
				return rc;
			}
		}
	} else if (!strcmp(cmd, "help")) {
		usage(stdout);
		return EXIT_OK;
	} else {
		return fbtool_usage_error("unknown command '%s' (list, check, wait, stats, call)",
				   cmd);
	}

	ret = bl_context_open(device, 0, &ctx);
	if (ret) {
		bl_parcel_fini(&req);
		return fbtool_unavailable(device, -ret);
	}
	if (!strcmp(cmd, "list"))
		rc = cmd_list(ctx);
	else if (!strcmp(cmd, "check"))
		rc = cmd_check(ctx, name);
	else if (!strcmp(cmd, "wait"))
		rc = cmd_wait(ctx, name, wait_timeout);
	else if (!strcmp(cmd, "stats"))
		rc = cmd_stats(ctx);
	else
		rc = cmd_call(ctx, name, code, &req, call_timeout, oneway);
	bl_context_close(ctx);
	bl_parcel_fini(&req);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fbtool_err("writing the output: %s", strerror(errno));
		return EXIT_FAILED;
	}
	return rc;
}
