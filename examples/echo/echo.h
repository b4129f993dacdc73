/* SPDX-License-Identifier: MIT */
/*
 * echo.h - the echo interface, shared by echo-service and echo-client.
 *
 * An interface is just a name to register under and a set of method
 * codes, each with an agreed request and reply layout.
 */
#ifndef EXAMPLE_ECHO_H
#define EXAMPLE_ECHO_H

#define ECHO_SERVICE_NAME	"echo"

/* request: string text  ->  reply: string text (the same), i32 call number */
#define ECHO_METHOD_ECHO	1

#endif
