/* SPDX-License-Identifier: MIT */
/*
 * policy.h - which uids, and callers of which security labels, may
 * register which names (docs/servicemanager.md, "Policy file").  Without
 * a policy every uid may register every name.
 */
#ifndef SM_POLICY_H
#define SM_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* uid of a rule that matches every uid ("allow * NAME"). */
#define SM_ANY_UID	((uid_t)-1)

struct sm_rule {
	uid_t uid;		/* or SM_ANY_UID */
	bool prefix;		/* "NAME*": every name that starts with name */
	char *name;
	char *label;		/* "label=LABEL": only callers of it; or NULL */
	bool label_prefix;	/* "label=PREFIX*": labels that start with it */
};

struct sm_policy {
	struct sm_rule *rules;
	size_t count;
	size_t capacity;
};

/*
 * Parses a policy from f into *p (which the caller zeroes first).  On a
 * syntax error returns -EINVAL and sets *bad_line to its number (from 1);
 * -ENOMEM.  On failure *p is left empty.
 */
int sm_policy_parse(FILE *f, struct sm_policy *p, unsigned int *bad_line);

/*
 * True when uid, with the security label label (NULL: the caller's label is
 * not known), may register name under p.
 */
bool sm_policy_allows(const struct sm_policy *p, uid_t uid, const char *label,
		      const char *name);

void sm_policy_free(struct sm_policy *p);

#endif /* SM_POLICY_H */
