/* SPDX-License-Identifier: MIT */
/*
 * threadpool.h - the interface of threadpool-service.
 */
#ifndef EXAMPLE_THREADPOOL_H
#define EXAMPLE_THREADPOOL_H

#define TP_SERVICE_NAME	"threadpool"
#define TP_THREADS	4	/* looper threads of the service's pool */

/*
 * request: i32 ms  ->  reply: i32 tid of the thread that served the call,
 *                          i32 calls in progress when it started (itself included)
 * Sleeps ms milliseconds (0..10000) before replying.
 */
#define TP_METHOD_SLEEP	1

#endif
