/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of rina.ko at job, attachment and agent worker state
 * transitions: /sys/kernel/tracing/events/rina/.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rina

#if !defined(RINA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RINA_TRACE_H

#include <linux/tracepoint.h>

#ifndef RINA_TRACE_WHAT
#define RINA_TRACE_WHAT
enum rina_trace_what {
	RINA_TR_ADD,
	RINA_TR_DELETE,
	RINA_TR_STATE,
	RINA_TR_ATTACH,
	RINA_TR_DETACH,
	RINA_TR_LOST,
	RINA_TR_AGENT_START,
	RINA_TR_AGENT_STOP,
	RINA_TR_AGENT_ABORT,
};
#endif

#define rina_trace_what_names				\
	{ RINA_TR_ADD,		"add" },		\
	{ RINA_TR_DELETE,	"delete" },		\
	{ RINA_TR_STATE,	"state" },		\
	{ RINA_TR_ATTACH,	"attach" },		\
	{ RINA_TR_DETACH,	"detach" },		\
	{ RINA_TR_LOST,		"lost" },		\
	{ RINA_TR_AGENT_START,	"agent_start" },	\
	{ RINA_TR_AGENT_STOP,	"agent_stop" },		\
	{ RINA_TR_AGENT_ABORT,	"agent_abort" }

TRACE_EVENT(rina_job,
	TP_PROTO(u16 job_id, u8 state, u8 what),
	TP_ARGS(job_id, state, what),
	TP_STRUCT__entry(
		__field(u16, job_id)
		__field(u8, state)
		__field(u8, what)
	),
	TP_fast_assign(
		__entry->job_id = job_id;
		__entry->state = state;
		__entry->what = what;
	),
	TP_printk("job=%u state=%u %s", __entry->job_id, __entry->state,
		  __print_symbolic(__entry->what, rina_trace_what_names))
);

TRACE_EVENT(rina_attach,
	TP_PROTO(u16 job_id, u16 rank, u8 what),
	TP_ARGS(job_id, rank, what),
	TP_STRUCT__entry(
		__field(u16, job_id)
		__field(u16, rank)
		__field(u8, what)
	),
	TP_fast_assign(
		__entry->job_id = job_id;
		__entry->rank = rank;
		__entry->what = what;
	),
	TP_printk("job=%u rank=%u %s", __entry->job_id, __entry->rank,
		  __print_symbolic(__entry->what, rina_trace_what_names))
);

/* Agent protocol state transitions (enum rina_agent_event, core/agent.h). */
#define rina_agent_event_names					\
	{ 1, "session_start" }, { 2, "next_up" }, { 3, "worker_bye" },	\
	{ 4, "workers_left" }, { 5, "session_end" }, { 6, "abort" },	\
	{ 7, "mismatch" }

TRACE_EVENT(rina_agent,
	TP_PROTO(u16 job_id, u16 rank, u8 event, u32 arg),
	TP_ARGS(job_id, rank, event, arg),
	TP_STRUCT__entry(
		__field(u16, job_id)
		__field(u16, rank)
		__field(u8, event)
		__field(u32, arg)
	),
	TP_fast_assign(
		__entry->job_id = job_id;
		__entry->rank = rank;
		__entry->event = event;
		__entry->arg = arg;
	),
	TP_printk("job=%u rank=%u %s arg=%u", __entry->job_id,
		  __entry->rank,
		  __print_symbolic(__entry->event, rina_agent_event_names),
		  __entry->arg)
);

#endif /* RINA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
