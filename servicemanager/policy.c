// SPDX-License-Identifier: MIT
/*
 * policy.c - the policy file: one rule per line,
 *
 *	allow UID NAME		uid UID may register exactly NAME
 *	allow UID PREFIX*	... every name that starts with PREFIX
 *	allow * NAME		any uid (as above, PREFIX* too)
 *	allow UID NAME label=LABEL	... only a caller whose security label
 *				is LABEL (label=PREFIX*: starts with PREFIX)
 *
 * "#" starts a comment, blank lines are ignored.  UIDs are numbers: the
 * daemon is static and resolves no user names.  Rules only allow: a name
 * no rule matches is refused, root included.  A label rule never matches
 * a caller whose label the manager does not know (the driver delivers
 * none) or who has none (no LSM).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "binderlite.h"
#include "policy.h"

#define SM_MAX_RULES	4096

/* A label of a rule: printable, no blank (the words' separator), no '*' but at the end. */
static int parse_label(const char *s, char **label, bool *prefix)
{
	size_t len = strlen(s), i;

	*prefix = len && s[len - 1] == '*';
	if (*prefix)
		len--;
	if (!len || len >= FBINDER_SECCTX_MAX)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isgraph((unsigned char)s[i]) || s[i] == '*')
			return -EINVAL;
	*label = strndup(s, len);
	return *label ? 0 : -ENOMEM;
}

static int add_rule(struct sm_policy *p, uid_t uid, const char *name,
		    size_t len, bool prefix, const char *label)
{
	struct sm_rule *r;
	int ret;

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
	r->label = NULL;
	r->label_prefix = false;
	if (label) {
		ret = parse_label(label, &r->label, &r->label_prefix);
		if (ret)
			return ret;
	}
	r->name = strndup(name, len);
	if (!r->name) {
		free(r->label);
		return -ENOMEM;
	}
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
	char *word[5], *save = NULL;
	const char *label = NULL;
	size_t n = 0, len, i;
	bool prefix = false;
	uid_t uid;
	char *tok;

	for (tok = strtok_r(line, " \t\r\n", &save); tok && n < 5;
	     tok = strtok_r(NULL, " \t\r\n", &save))
		word[n++] = tok;
	if (n == 0)
		return 0;
	if (n == 4 && !strncmp(word[3], "label=", 6))
		label = word[3] + 6;
	else if (n != 3)
		return -EINVAL;
	if (strcmp(word[0], "allow") || parse_uid(word[1], &uid))
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
	return add_rule(p, uid, word[2], len, prefix, label);
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

static bool label_matches(const struct sm_rule *r, const char *label)
{
	if (!r->label)
		return true;
	if (!label)
		return false;
	return r->label_prefix ? !strncmp(label, r->label, strlen(r->label)) :
				 !strcmp(label, r->label);
}

bool sm_policy_allows(const struct sm_policy *p, uid_t uid, const char *label,
		      const char *name)
{
	size_t i;

	if (!p)
		return true;
	for (i = 0; i < p->count; i++) {
		const struct sm_rule *r = &p->rules[i];

		if ((r->uid != SM_ANY_UID && r->uid != uid) ||
		    !label_matches(r, label))
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

	for (i = 0; i < p->count; i++) {
		free(p->rules[i].name);
		free(p->rules[i].label);
	}
	free(p->rules);
	memset(p, 0, sizeof(*p));
}
