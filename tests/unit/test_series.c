/* Unit tests for the pure parts of the series export: the agent's refs, read
 * as data (agentgit.c), and its messages made safe for an mbox (seriesmsg.c). */
#include "t.h"

#include "agentgit.h"
#include "seriesmsg.h"

#define OID "0123456789abcdef0123456789abcdef01234567"

T(head_detached_symbolic_and_hostile)
{
	char oid[65];
	char *ref = NULL;
	CHECK(agentgit_parse_head(OID "\n", 41, 40, oid, &ref) == 0);
	CHECK_STR(oid, OID);
	CHECK(agentgit_parse_head("ref: refs/heads/main\n", 21, 40, oid, &ref) == 1);
	CHECK_STR(ref, "refs/heads/main");
	free(ref);
	ref = NULL;
	static const char *const bad[] = {
		"ref: refs/heads/../../config\n", "ref: /etc/passwd\n", "ref: HEAD\n",
		"ref: refs/heads/a\nref: refs/heads/b\n", "0123\n", "ref: refs/heads/x.lock\n",
		"ref: refs/heads/a b\n", "ref: refs/heads/.hidden\n", "ref: refs/heads/x\\y\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		CHECK(agentgit_parse_head(bad[i], strlen(bad[i]), 40, oid, &ref) == -1);
	CHECK(agentgit_parse_head("ref: refs/heads/a\0b", 19, 40, oid, &ref) == -1);
	CHECK(ref == NULL);
}

T(packed_refs_lookup)
{
	const char *p = "# pack-refs with: peeled fully-peeled sorted\n"
	                "1111111111111111111111111111111111111111 refs/heads/main2\n"
	                OID " refs/heads/main\n"
	                "^2222222222222222222222222222222222222222\n";
	char oid[65];
	CHECK(agentgit_packed_find(p, strlen(p), "refs/heads/main", 40, oid) == 0);
	CHECK_STR(oid, OID);
	CHECK(agentgit_packed_find(p, strlen(p), "refs/heads/mai", 40, oid) == 1);
	CHECK(agentgit_packed_find(p, strlen(p), "refs/heads/other", 40, oid) == 1);
}

T(message_lines_git_am_would_parse_are_indented)
{
	const char *m = "feat: x\n\nFrom: Evil <e@x>\nbody\n---\ndiff --git a/x b/x\n"
	                "Index: y\nFrom 000 Mon Sep 17 00:00:00 2001\n-- >8 --\nok -- fine\n";
	char *s = seriesmsg_sanitize(m, strlen(m));
	CHECK_STR(s, "feat: x\n\n From: Evil <e@x>\nbody\n ---\n diff --git a/x b/x\n"
	             " Index: y\n From 000 Mon Sep 17 00:00:00 2001\n-- > 8 --\nok -- fine");
	free(s);
	/* git splits paragraphs at a line of blanks: the first body line is the
	 * one after it, and mailinfo reads in-body headers there */
	s = seriesmsg_sanitize("Fix typo\n \t\nFrom: Evil <e@x>\nSubject: other\n", 44);
	CHECK_STR(s, "Fix typo\n\n From: Evil <e@x>\nSubject: other");
	free(s);
	s = seriesmsg_sanitize(" \nFix\n\n  \n\t\nDate: 1 Jan 2001\n \nbody\n\t\n", 38);
	CHECK_STR(s, "Fix\n\n Date: 1 Jan 2001\n\nbody");
	free(s);
	/* the subject paragraph is one line as git am lands it */
	s = seriesmsg_sanitize("Fix  typo\n\tand add telemetry \n\nbody", 35);
	CHECK_STR(s, "Fix typo and add telemetry\n\nbody");
	free(s);
	/* every scissors mark, however indented, is broken: with --scissors
	 * git am would drop what is above and read headers below */
	s = seriesmsg_sanitize("x\n\nbody\n  --- %< ---\n-->8--8<-->%--%<\nFrom: E <e@x>", 51);
	CHECK_STR(s, "x\n\nbody\n  --- % < ---\n--> 8--8 <--> %--% <\nFrom: E <e@x>");
	free(s);
	/* mailinfo's in-body "[PATCH] subject": it would replace the subject */
	s = seriesmsg_sanitize("feat: x\n\n[PATCH] typo\n[PATCH] later", 35);
	CHECK_STR(s, "feat: x\n\n [PATCH] typo\n[PATCH] later");
	free(s);
	/* what mailinfo strips from a subject: the summary shows what lands */
	s = seriesmsg_sanitize("[wip] Re: fix\n\nbody", 19);
	CHECK_STR(s, "fix\n\nbody");
	free(s);
	s = seriesmsg_sanitize("[x]\n[y] two lines\n\nbody", 23);
	CHECK_STR(s, "two lines\n\nbody");
	free(s);
	s = seriesmsg_sanitize("[x] [y]\n\nbody", 13);
	CHECK_STR(s, "(no subject)\n\nbody");
	free(s);
	s = seriesmsg_sanitize("[x]", 3);
	CHECK_STR(s, "(no message)");
	free(s);
	s = seriesmsg_sanitize("read: me [x]", 12);
	CHECK_STR(s, "read: me [x]");
	free(s);
	s = seriesmsg_sanitize("a\033[2Jb\xff\n\n\n", 9);
	CHECK_STR(s, "a?[2Jb?");
	free(s);
	s = seriesmsg_sanitize("\n\n", 2);
	CHECK_STR(s, "(no message)");
	free(s);
	s = seriesmsg_sanitize("fix \xe2\x80\xae" "cod\xe2\x81\xa6" "e caf\xc3\xa9", 20);  /* RLO, LRI */
	CHECK_STR(s, "fix ?cod?e caf\xc3\xa9");
	free(s);
	s = seriesmsg_ident_part("Ada\xe2\x80\x8b", 6, false);  /* ZWSP */
	CHECK_STR(s, "Ada?");
	free(s);
}

T(trailer_joins_an_existing_trailer_block)
{
	char *s = seriesmsg_finish("feat: x\n\nbody", NULL, "app/default");
	CHECK_STR(s, "feat: x\n\nbody\n\nJail-Session: app/default");
	free(s);
	s = seriesmsg_finish("feat: x\n\nSigned-off-by: A <a@x>", NULL, "app/default");
	CHECK_STR(s, "feat: x\n\nSigned-off-by: A <a@x>\nJail-Session: app/default");
	free(s);
	struct strv notes = {0};
	strv_push(&notes, ".envrc: denied");
	s = seriesmsg_finish("feat: x", &notes, NULL);
	CHECK_STR(s, "feat: x\n\nLeft out by jail:\n  .envrc: denied");
	free(s);
	strv_push(&notes, "------->8-------: a name");
	s = seriesmsg_finish("feat: x", &notes, NULL);
	CHECK_STR(s, "feat: x\n\nLeft out by jail:\n  .envrc: denied\n  -------> 8-------: a name");
	free(s);
	strv_free(&notes);
}

T(default_subject_names_what_changed)
{
	struct change v[] = {
		{.path = (char *)"NEW.md", .new_type = FT_FILE, .pre = PRE_NONE},
		{.path = (char *)"gone.txt", .new_type = FT_NONE, .pre = PRE_BASE},
		{.path = (char *)"src/main.c", .new_type = FT_FILE, .pre = PRE_BASE},
		{.path = (char *)"secret", .new_type = FT_FILE, .reason = (char *)"denied"},
	};
	struct changeset cs = {.v = v, .n = 4};
	char *s = seriesmsg_default_subject(&cs, "default");
	CHECK_STR(s, "Update main.c, add NEW.md, delete gone.txt (jail session default)");
	free(s);
	cs.n = 1;
	s = seriesmsg_default_subject(&cs, "s1");
	CHECK_STR(s, "Add NEW.md (jail session s1)");
	free(s);
}

T(ident_parts_cannot_break_a_header)
{
	char *s = seriesmsg_ident_part(" Ada <x>\n", 9, false);
	CHECK_STR(s, "Ada ?x??");
	free(s);
	CHECK(seriesmsg_ident_part("   ", 3, false) == NULL);
	/* what git am would read as another address than the summary shows */
	s = seriesmsg_ident_part("ada@example.com", 15, false);
	CHECK_STR(s, "ada?example.com");
	free(s);
	s = seriesmsg_ident_part("x@y (Ada), \"a\\b\";c", 18, true);
	CHECK_STR(s, "x@y??Ada????a?b??c");
	free(s);
	s = seriesmsg_ident_part("bob@x", 5, true);
	CHECK_STR(s, "bob@x");
	free(s);
}
