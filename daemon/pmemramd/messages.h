/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd's journal events: one MESSAGE_ID and one priority per kind of event (systemd/pmemram.catalog). */
#pragma once

#include <errno.h>

/*
 * Every line pmemramd logs at notice or above is one of these: the kind of event decides its
 * MESSAGE_ID and its priority, the variable parts (device, claim, block, reason) go in the message
 * and in structured fields.  Each id has one entry in systemd/pmemram.catalog, which says what the
 * event means and what to do (journalctl -x shows it); tests/unit/test-catalog.c holds the two
 * together.  Information and debug lines carry no id (manager_log()).
 */
enum manager_event {
	MANAGER_EVENT_DEVICE_ONLINE,
	MANAGER_EVENT_DEVICE_REFUSED,
	MANAGER_EVENT_DEVICE_FAILED,
	MANAGER_EVENT_ACTION_FAILED,
	MANAGER_EVENT_NAMESPACE_CONVERTED,
	MANAGER_EVENT_NAMESPACE_CREATED,
	MANAGER_EVENT_CLAIM_UNMATCHED,
	MANAGER_EVENT_SETTLE_TIMEOUT,
	MANAGER_EVENT_NO_CONFIG,
	MANAGER_EVENT_CONFIG_ERROR,
	MANAGER_EVENT_RELOAD_REJECTED,
	MANAGER_EVENT_DAXCTL_CLAIM,
	MANAGER_EVENT_DAXCTL_CONFLICT,
	MANAGER_EVENT_DAXCTL_WARNING,
	MANAGER_EVENT_CONFIG_UNUSABLE,
	MANAGER_EVENT_START_FAILED,
	MANAGER_EVENT_RECONCILE_FAILED,
	MANAGER_EVENT_RECONCILE_UNFINISHED,
	MANAGER_EVENT_MAPS_UNREADABLE,
	MANAGER_EVENT_UEVENTS_LOST,
	MANAGER_EVENT_HELD_UNREADABLE,
	MANAGER_EVENT_HELD_UNSAVED,
	MANAGER_EVENT_HOLD_DROPPED,
	MANAGER_EVENT_ONLINED_UNSAVED,
	MANAGER_EVENT_AUTO_ONLINE_RESTORED,
	MANAGER_EVENT_AUTO_ONLINE_STUCK,
	MANAGER_EVENT_DEVICE_RELEASED,
	MANAGER_EVENT_RELEASE_FAILED,
	MANAGER_EVENT_RELEASE_INCOMPLETE,
	MANAGER_EVENT_RELEASE_LOST,
	MANAGER_EVENT_SHUFFLE_NEXT_BOOT,
	MANAGER_EVENT_SHUFFLE_DRIFT,
	MANAGER_EVENT_SHUFFLE_UNKNOWN,
	MANAGER_EVENT_SHUFFLE_FORCED_OFF,
	MANAGER_EVENT_SHUFFLE_SWITCH_FAILED,
	MANAGER_EVENT_CLASS_UNRESOLVED,
	MANAGER_EVENT_CLASS_SLICES_FAILED,
	MANAGER_EVENT_CLASS_DEMOTION_CONFLICT,
	MANAGER_EVENT_DEMOTION_UNSUPPORTED,
	MANAGER_EVENT_DEMOTION_FAILED,
	MANAGER_EVENT_PROMOTION_UNSUPPORTED,
	MANAGER_EVENT_PROMOTION_FAILED,
	MANAGER_EVENT_REQUEST_REFUSED,
	MANAGER_EVENT_CLIENTS_REFUSED,
	MANAGER_EVENT_ACCEPT_PAUSED,
	MANAGER_EVENT_EXPORT_FAILED,
	MANAGER_EVENT_NFD_LABELS_DROPPED,
	MANAGER_EVENT_LIBRARY_ERROR,
	_MANAGER_EVENT_MAX,
	_MANAGER_EVENT_INVALID = -EINVAL, /* no event: a line of information */
};

struct manager_event_info {
	const char *name;   /* "device-online": what the man page and the tests call it */
	const char *id;	    /* the MESSAGE_ID: 32 lowercase hex digits */
	int priority;	    /* notice or above (the library's own lines keep theirs) */
	const char *fields; /* the structured fields it may carry, space-separated ("" none) */
};

extern const struct manager_event_info manager_events[_MANAGER_EVENT_MAX];
