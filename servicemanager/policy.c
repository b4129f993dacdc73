// SPDX-License-Identifier: MIT
/*
 * policy.c - the policy file: one rule per line,
 *
 *	allow UID NAME		uid UID may register exactly NAME
 *	allow UID PREFIX*	... every name that starts with PREFIX
 *	allow * NAME		any uid (as above, PREFIX* too)
 *
 * "#" starts a comment, blank lines are ignored.  UIDs are numbers: the
 * daemon is static and resolves no user names.  Rules only allow: a name
 * no rule matches is refused, root included.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "binderlite.h"
#include "policy.h"

#define SM_MAX_RULES	4096

static int add_rule(struct sm_policy *p, uid_t uid, const char *name,
		    size_t len, bool prefix)
{
	struct sm_rule *r;

	if (p->count == p->capacity) {
		size_t cap = p->capacity ? p->capacity * 2 : 16;

		if (p->count >= SM_MAX_RULES)
			return -EINVAL;
		r = realloc(p->rules, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		p->rules = r;
		p->capacity = cap;
	}
	r = &p->rules[p->count];
	r->name = strndup(name, len);
	if (!r->name)
		return -ENOMEM;
	r->uid = uid;
	r->prefix = prefix;
	p->count++;
	return 0;
}

static int parse_uid(const char *s, uid_t *uid)
{
	unsigned long v;
	char *end;

	if (!strcmp(s, "*")) {
		*uid = SM_ANY_UID;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= (unsigned long)SM_ANY_UID)
		return -EINVAL;
	*uid = (uid_t)v;
	return 0;
}

/* One line, comment already cut: 0 (rule or blank), or -errno. */
static int parse_line(char *line, struct sm_policy *p)
{
	char *word[4], *save = NULL;
	size_t n = 0, len, i;
	bool prefix = false;
	uid_t uid;
	char *tok;

	for (tok = strtok_r(line, " \t\r\n", &save); tok && n < 4;
	     tok = strtok_r(NULL, " \t\r\n", &save))
		word[n++] = tok;
	if (n == 0)
		return 0;
	if (n != 3 || strcmp(word[0], "allow") || parse_uid(word[1], &uid))
		return -EINVAL;
	len = strlen(word[2]);
	if (len && word[2][len - 1] == '*') {
		prefix = true;
		len--;
	}
	/* "allow UID *" (every name) is a prefix rule with an empty prefix */
	if (!len && !prefix)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!bl_sm_name_char(word[2][i]))
			return -EINVAL;
	return add_rule(p, uid, word[2], len, prefix);
}

int sm_policy_parse(FILE *f, struct sm_policy *p, unsigned int *bad_line)
{
	unsigned int lineno = 0;
	size_t cap = 0;
	char *line = NULL;
	int ret = 0;

	while (getline(&line, &cap, f) >= 0) {
		char *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = '\0';
		ret = parse_line(line, p);
		if (ret) {
			*bad_line = lineno;
			break;
		}
	}
	free(line);
	if (!ret && ferror(f))
		ret = -EIO;
	if (ret)
		sm_policy_free(p);
	return ret;
}

bool sm_policy_allows(const struct sm_policy *p, uid_t uid, const char *name)
{
	size_t i;

	if (!p)
		return true;
	for (i = 0; i < p->count; i++) {
		const struct sm_rule *r = &p->rules[i];

		if (r->uid != SM_ANY_UID && r->uid != uid)
			continue;
		if (r->prefix ? !strncmp(name, r->name, strlen(r->name)) :
				!strcmp(name, r->name))
			return true;
	}
	return false;
}

void sm_policy_free(struct sm_policy *p)
{
	size_t i;

	for (i = 0; i < p->count; i++)
		free(p->rules[i].name);
	free(p->rules);
	memset(p, 0, sizeof(*p));
}
