/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small json-c helpers shared by the formatters, the daemon and the CLI (needs json-c headers). */
#pragma once

#include <stdbool.h>

#include <json-c/json.h>

/* Drop *o and forget it (a cleanup function, also used on a value about to be returned). */
static inline void json_object_putp(struct json_object **o)
{
	if (*o)
		json_object_put(*o);
	*o = NULL;
}

/* Add key: value to o, taking value; false (and value freed) when either is NULL or adding fails. */
static inline bool json_add(struct json_object *o, const char *key, struct json_object *value)
{
	if (!o || !value || json_object_object_add(o, key, value) < 0) {
		json_object_put(value);
		return false;
	}
	return true;
}

/* Append item to array, taking item; false (and item freed) when either is NULL or appending fails. */
static inline bool json_append(struct json_object *array, struct json_object *item)
{
	if (!array || !item || json_object_array_add(array, item) < 0) {
		json_object_put(item);
		return false;
	}
	return true;
}

/* Add key: null (json-c's null is the NULL pointer, which json_add() takes for a failed allocation). */
static inline bool json_add_null_value(struct json_object *o, const char *key)
{
	return o && json_object_object_add(o, key, NULL) == 0;
}

/* Add key: s as a string, or null when s is NULL. */
static inline bool json_add_string_or_null(struct json_object *o, const char *key, const char *s)
{
	return s ? json_add(o, key, json_object_new_string(s)) : json_add_null_value(o, key);
}
