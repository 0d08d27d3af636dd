"""ctypes declarations of fief.h, and the loading of libfief.

Nothing here is public API.  `lib()` loads the library on first use (and
checks its version); `call_*` helpers turn a failed call into an exception
from :mod:`fief.errors`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import threading
from ctypes import (POINTER, Structure, Union, c_bool, c_char_p, c_double, c_float, c_int32,
                    c_int64, c_size_t, c_uint8, c_uint32, c_uint64, c_void_p)
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _version, errors

# The version of the fief.h this binding was built from: the library must be
# of the same MAJOR (MAJOR.MINOR while MAJOR is 0) and no older.
EXPECTED_VERSION_NUMBER = _version.VERSION_NUMBER
EXPECTED_VERSION_MAJOR, EXPECTED_VERSION_MINOR, EXPECTED_VERSION_PATCH = _version.split(EXPECTED_VERSION_NUMBER)

# -- value types ------------------------------------------------------------

AGGREGATE_MIN = 1
AGGREGATE_MAX = 2
AGGREGATE_SUM = 3
AGGREGATE_AVERAGE = 4

TYPE_NULL = 0
TYPE_INT = 1
TYPE_BOOL = 2
TYPE_STRING = 3
TYPE_BINARY = 4
TYPE_TIMESTAMP = 5
TYPE_FLOAT = 6
TYPE_DOUBLE = 7
TYPE_DECIMAL128 = 8
TYPE_OBJECT_ID = 9
TYPE_UUID = 10
TYPE_LINK = 11
TYPE_MIXED = 12        # properties and collection elements: a value of any type
TYPE_LIST = 13         # in a mixed value only: a nested list (no payload)
TYPE_MAP = 14   # in a mixed value only: a nested dictionary (no payload)
TYPE_GEO_SHAPE = 15    # query arguments only: a fief_geo_shape_t for GEOWITHIN

TYPE_NAMES = {
    TYPE_NULL: "null", TYPE_INT: "int", TYPE_BOOL: "bool", TYPE_STRING: "string",
    TYPE_BINARY: "binary", TYPE_TIMESTAMP: "timestamp", TYPE_FLOAT: "float",
    TYPE_DOUBLE: "double", TYPE_DECIMAL128: "decimal128", TYPE_OBJECT_ID: "objectId",
    TYPE_UUID: "uuid", TYPE_LINK: "link", TYPE_MIXED: "mixed", TYPE_LIST: "list",
    TYPE_MAP: "dictionary",
}

PROPERTY_NULLABLE = 0x01
PROPERTY_PRIMARY_KEY = 0x02
PROPERTY_INDEXED = 0x04
PROPERTY_FULLTEXT_INDEXED = 0x08

CLASS_EMBEDDED = 0x01
COLLECTION_NONE = 0
COLLECTION_LIST = 1
COLLECTION_SET = 2
COLLECTION_MAP = 3
COLLECTION_LINKING_OBJECTS = 4

COLLECTION_NAMES = {COLLECTION_NONE: "none", COLLECTION_LIST: "list", COLLECTION_SET: "set",
                    COLLECTION_MAP: "map", COLLECTION_LINKING_OBJECTS: "linking objects"}

UPDATE_POLICY_ERROR = 0
UPDATE_POLICY_MODIFIED = 1
UPDATE_POLICY_ALL = 2

fief_type_t = c_int32
fief_class_key_t = c_uint32
fief_property_key_t = c_uint32
fief_object_key_t = c_int64
fief_error_code_t = c_int32
fief_update_policy_t = c_int32
fief_collection_type_t = c_int32


class fief_string_t(Structure):
    _fields_ = [("data", c_void_p), ("size", c_size_t)]


class fief_binary_t(Structure):
    _fields_ = [("data", c_void_p), ("size", c_size_t)]


class fief_timestamp_t(Structure):
    _fields_ = [("seconds", c_int64), ("nanoseconds", c_int32)]


class fief_decimal128_t(Structure):
    _fields_ = [("w", c_uint64 * 2)]


class fief_object_id_t(Structure):
    _fields_ = [("bytes", c_uint8 * 12)]


class fief_uuid_t(Structure):
    _fields_ = [("bytes", c_uint8 * 16)]


class fief_link_t(Structure):
    _fields_ = [("class_key", c_uint32), ("object_key", c_int64)]


class _fief_value_u(Union):
    _fields_ = [
        ("integer", c_int64),
        ("boolean", c_bool),
        ("string", fief_string_t),
        ("binary", fief_binary_t),
        ("timestamp", fief_timestamp_t),
        ("float_value", c_float),
        ("double_value", c_double),
        ("decimal128", fief_decimal128_t),
        ("object_id", fief_object_id_t),
        ("uuid", fief_uuid_t),
        ("link", fief_link_t),
        ("geo_shape", c_void_p),  # const fief_geo_shape_t * (FIEF_TYPE_GEO_SHAPE)
    ]


class fief_value_t(Structure):
    _fields_ = [("type", fief_type_t), ("u", _fief_value_u)]


GEO_BOX = 1
GEO_POLYGON = 2
GEO_CIRCLE = 3


class fief_geo_point_t(Structure):
    _fields_ = [("longitude", c_double), ("latitude", c_double)]


class fief_geo_ring_t(Structure):
    _fields_ = [("points", POINTER(fief_geo_point_t)), ("count", c_size_t)]


class fief_geo_shape_t(Structure):
    _fields_ = [
        ("kind", c_int32),
        ("corners", fief_geo_point_t * 2),
        ("rings", POINTER(fief_geo_ring_t)),
        ("num_rings", c_size_t),
        ("center", fief_geo_point_t),
        ("radius", c_double),
    ]


class fief_error_t(Structure):
    _fields_ = [("code", fief_error_code_t), ("categories", c_uint32),
                ("message", c_char_p), ("path", c_char_p)]


class fief_property_info_t(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("type", fief_type_t),
        ("collection_type", fief_collection_type_t),
        ("link_target", c_char_p),
        ("link_origin_property", c_char_p),
        ("flags", c_uint32),
        ("key", fief_property_key_t),
    ]


class fief_class_info_t(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("primary_key", c_char_p),
        ("num_properties", c_size_t),
        ("flags", c_uint32),
        ("key", fief_class_key_t),
    ]


class fief_query_arg_t(Structure):
    _fields_ = [("count", c_size_t), ("is_list", c_bool), ("values", POINTER(fief_value_t))]


class fief_sort_descriptor_t(Structure):
    _fields_ = [("key_path", c_char_p), ("ascending", c_bool)]


# Handles are opaque pointers; c_void_p gives them to Python as int or None.
H = c_void_p
P = POINTER

# void (*fief_report_fn)(void *userdata, fief_report_kind_t kind, const char *text)
fief_report_fn = ctypes.CFUNCTYPE(None, c_void_p, ctypes.c_int32, c_char_p)
# Notifications: void (*fief_realm_notification_fn)(void *userdata, fief_realm_notification_t n),
# void (*fief_wakeup_fn)(void *userdata), void (*fief_free_fn)(void *userdata)
fief_realm_notification_fn = ctypes.CFUNCTYPE(None, c_void_p, ctypes.c_int32)
fief_wakeup_fn = ctypes.CFUNCTYPE(None, c_void_p)
fief_free_fn = ctypes.CFUNCTYPE(None, c_void_p)
# Results notifications: void (*fief_collection_changes_fn)(void *userdata, const fief_collection_changes_t *changes)
fief_collection_changes_fn = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)


class fief_index_path_t(Structure):
    _fields_ = [("section", c_size_t), ("item", c_size_t)]


class fief_index_range_t(Structure):
    _fields_ = [("from", c_size_t), ("to", c_size_t)]
# Object notifications: void (*fief_object_notification_fn)(void *userdata, const fief_object_changes_t *changes)
fief_object_notification_fn = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)
fief_map_changes_fn = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)

# name: (restype, argtypes)
PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "fief_version_number": (c_int32, []),
    "fief_version_string": (c_char_p, []),
    "fief_get_last_error": (c_bool, [P(fief_error_t)]),
    "fief_clear_last_error": (None, []),
    "fief_error_name": (c_char_p, [fief_error_code_t]),
    "fief_release": (c_bool, [H]),
    # schema
    "fief_schema_new": (H, [P(fief_class_info_t), c_size_t, P(P(fief_property_info_t))]),
    "fief_schema_get_class_count": (c_bool, [H, P(c_size_t)]),
    "fief_schema_get_class": (c_bool, [H, c_size_t, P(fief_class_info_t)]),
    "fief_schema_get_property": (c_bool, [H, c_size_t, c_size_t, P(fief_property_info_t)]),
    "fief_schema_find_class": (c_bool, [H, c_char_p, P(fief_class_info_t), P(c_size_t), P(c_bool)]),
    "fief_schema_find_property": (c_bool, [H, c_size_t, c_char_p, P(fief_property_info_t), P(c_bool)]),
    # config
    "fief_config_new": (H, []),
    "fief_config_set_path": (c_bool, [H, c_char_p]),
    "fief_config_set_in_memory_identifier": (c_bool, [H, c_char_p]),
    "fief_config_set_read_only": (c_bool, [H, c_bool]),
    "fief_config_set_schema": (c_bool, [H, H]),
    "fief_config_set_schema_version": (c_bool, [H, c_uint64]),
    "fief_config_set_delete_if_migration_needed": (c_bool, [H, c_bool]),
    "fief_config_set_durability": (c_bool, [H, ctypes.c_int32]),
    "fief_config_set_max_active_versions": (c_bool, [H, c_uint64]),
    # realm
    "fief_realm_open": (H, [H]),
    "fief_realm_get_schema_version": (c_bool, [H, P(c_uint64)]),
    "fief_file_delete": (c_bool, [c_char_p, P(c_bool)]),
    "fief_realm_close": (c_bool, [H]),
    "fief_realm_is_closed": (c_bool, [H, P(c_bool)]),
    "fief_realm_is_frozen": (c_bool, [H, P(c_bool)]),
    "fief_realm_is_read_only": (c_bool, [H, P(c_bool)]),
    "fief_realm_get_version": (c_bool, [H, P(c_uint64)]),
    "fief_realm_get_path": (c_char_p, [H]),
    "fief_realm_get_schema": (H, [H]),
    "fief_realm_update_schema": (c_bool, [H, H]),
    "fief_realm_begin_write": (c_bool, [H]),
    "fief_realm_commit": (c_bool, [H]),
    "fief_realm_cancel": (c_bool, [H]),
    "fief_realm_is_in_transaction": (c_bool, [H, P(c_bool)]),
    "fief_realm_refresh": (c_bool, [H, P(c_bool)]),
    "fief_realm_invalidate": (c_bool, [H]),
    "fief_realm_freeze": (H, [H]),
    "fief_realm_thaw": (H, [H]),
    "fief_realm_delete_all": (c_bool, [H]),
    "fief_realm_delete_all_of_class": (c_bool, [H, fief_class_key_t]),
    # objects
    "fief_object_create": (H, [H, fief_class_key_t, P(fief_property_key_t), P(fief_value_t),
                               c_size_t, fief_update_policy_t]),
    "fief_object_create_many": (c_bool, [H, fief_class_key_t, P(fief_property_key_t), c_size_t,
                                         P(fief_value_t), c_size_t, fief_update_policy_t,
                                         P(fief_object_key_t)]),
    "fief_object_find_by_primary_key": (H, [H, fief_class_key_t, fief_value_t, P(c_bool)]),
    "fief_object_get": (H, [H, fief_class_key_t, fief_object_key_t]),
    "fief_object_is_valid": (c_bool, [H]),
    "fief_object_get_key": (c_bool, [H, P(fief_object_key_t)]),
    "fief_object_get_class_key": (c_bool, [H, P(fief_class_key_t)]),
    "fief_object_get_realm": (H, [H]),
    "fief_object_get_backlinks": (H, [H, fief_class_key_t, fief_property_key_t]),
    "fief_object_get_value": (c_bool, [H, fief_property_key_t, P(fief_value_t)]),
    "fief_object_get_values": (c_bool, [H, P(fief_property_key_t), c_size_t, P(fief_value_t)]),
    "fief_object_get_values_by_key": (c_bool, [H, fief_class_key_t, fief_object_key_t, P(fief_property_key_t),
                                               c_size_t, P(fief_value_t)]),
    "fief_object_set_value": (c_bool, [H, fief_property_key_t, fief_value_t]),
    "fief_object_set_values": (c_bool, [H, P(fief_property_key_t), P(fief_value_t), c_size_t]),
    "fief_object_delete": (c_bool, [H]),
    "fief_object_create_embedded": (H, [H, fief_property_key_t]),
    "fief_object_resolve_in": (c_bool, [H, H, P(c_void_p)]),
    # lists
    "fief_object_get_list": (H, [H, fief_property_key_t]),
    "fief_list_is_valid": (c_bool, [H]),
    "fief_list_count": (c_bool, [H, P(c_size_t)]),
    "fief_list_get": (c_bool, [H, c_size_t, P(fief_value_t)]),
    "fief_list_get_range": (c_bool, [H, c_size_t, c_size_t, P(fief_value_t)]),
    "fief_list_index_of": (c_bool, [H, fief_value_t, P(c_size_t), P(c_bool)]),
    "fief_list_set": (c_bool, [H, c_size_t, fief_value_t]),
    "fief_list_insert": (c_bool, [H, c_size_t, fief_value_t]),
    "fief_list_append": (c_bool, [H, P(fief_value_t), c_size_t]),
    "fief_list_remove": (c_bool, [H, c_size_t]),
    "fief_list_move": (c_bool, [H, c_size_t, c_size_t]),
    "fief_list_swap": (c_bool, [H, c_size_t, c_size_t]),
    "fief_list_clear": (c_bool, [H]),
    "fief_list_delete_all_objects": (c_bool, [H]),
    "fief_list_insert_embedded": (H, [H, c_size_t]),
    "fief_list_resolve_in": (c_bool, [H, H, P(c_void_p)]),
    "fief_list_to_results": (c_void_p, [H]),
    # sets
    "fief_object_get_set": (H, [H, fief_property_key_t]),
    "fief_set_is_valid": (c_bool, [H]),
    "fief_set_count": (c_bool, [H, P(c_size_t)]),
    "fief_set_get": (c_bool, [H, c_size_t, P(fief_value_t)]),
    "fief_set_get_range": (c_bool, [H, c_size_t, c_size_t, P(fief_value_t)]),
    "fief_set_contains": (c_bool, [H, fief_value_t, P(c_bool)]),
    "fief_set_index_of": (c_bool, [H, fief_value_t, P(c_size_t), P(c_bool)]),
    "fief_set_insert": (c_bool, [H, fief_value_t, P(c_bool)]),
    "fief_set_remove": (c_bool, [H, fief_value_t, P(c_bool)]),
    "fief_set_clear": (c_bool, [H]),
    "fief_set_intersects": (c_bool, [H, H, P(c_bool)]),
    "fief_set_is_subset_of": (c_bool, [H, H, P(c_bool)]),
    "fief_set_is_superset_of": (c_bool, [H, H, P(c_bool)]),
    "fief_set_form_union": (c_bool, [H, H]),
    "fief_set_form_intersection": (c_bool, [H, H]),
    "fief_set_subtract": (c_bool, [H, H]),
    "fief_set_to_results": (H, [H]),
    "fief_set_resolve_in": (c_bool, [H, H, P(c_void_p)]),
    # maps
    "fief_object_get_map": (H, [H, fief_property_key_t]),
    "fief_map_is_valid": (c_bool, [H]),
    "fief_map_count": (c_bool, [H, P(c_size_t)]),
    "fief_map_get": (c_bool, [H, fief_string_t, P(fief_value_t), P(c_bool)]),
    "fief_map_contains_key": (c_bool, [H, fief_string_t, P(c_bool)]),
    "fief_map_index_of_key": (c_bool, [H, fief_string_t, P(c_size_t), P(c_bool)]),
    "fief_map_get_entry": (c_bool, [H, c_size_t, P(fief_string_t), P(fief_value_t)]),
    "fief_map_get_entries": (c_bool, [H, c_size_t, c_size_t, P(fief_string_t), P(fief_value_t)]),
    "fief_map_set": (c_bool, [H, fief_string_t, fief_value_t]),
    "fief_map_remove": (c_bool, [H, fief_string_t, P(c_bool)]),
    "fief_map_clear": (c_bool, [H]),
    "fief_map_insert_embedded": (H, [H, fief_string_t]),
    "fief_map_to_results": (H, [H]),
    "fief_map_resolve_in": (c_bool, [H, H, P(c_void_p)]),
    # nested collections (in mixed values)
    "fief_list_get_list": (H, [H, c_size_t]),
    "fief_list_get_map": (H, [H, c_size_t]),
    "fief_map_get_list": (H, [H, fief_string_t]),
    "fief_map_get_map": (H, [H, fief_string_t]),
    # results
    "fief_realm_get_objects": (H, [H, fief_class_key_t]),
    "fief_results_filter": (H, [H, c_char_p, P(fief_query_arg_t), c_size_t]),
    "fief_results_get_description": (c_char_p, [H]),
    "fief_results_sort": (H, [H, P(fief_sort_descriptor_t), c_size_t]),
    "fief_results_distinct": (H, [H, P(c_char_p), c_size_t]),
    "fief_results_limit": (H, [H, c_size_t]),
    "fief_results_count": (c_bool, [H, P(c_size_t)]),
    "fief_results_get_class_key": (c_bool, [H, P(fief_class_key_t)]),
    "fief_results_get_object": (H, [H, c_size_t]),
    "fief_results_get_key": (c_bool, [H, c_size_t, P(fief_object_key_t)]),
    "fief_results_get_keys": (c_bool, [H, c_size_t, c_size_t, P(fief_object_key_t), P(c_size_t)]),
    "fief_results_get_values": (c_bool, [H, c_size_t, P(fief_property_key_t), c_size_t,
                                         P(fief_value_t)]),
    "fief_results_index_of_object": (c_bool, [H, H, P(c_size_t), P(c_bool)]),
    "fief_results_delete_all": (c_bool, [H]),
    "fief_results_set_value": (c_bool, [H, fief_property_key_t, fief_value_t]),
    "fief_results_is_valid": (c_bool, [H]),
    "fief_results_get_realm": (H, [H]),
    "fief_results_resolve_in": (H, [H, H]),
    "fief_results_get_element_type": (c_bool, [H, P(c_int32), P(c_bool)]),
    "fief_results_get_value": (c_bool, [H, c_size_t, P(fief_value_t)]),
    "fief_results_index_of_value": (c_bool, [H, fief_value_t, P(c_size_t), P(c_bool)]),
    # aggregates
    "fief_results_aggregate": (c_bool, [H, fief_property_key_t, c_int32, P(fief_value_t)]),
    "fief_list_aggregate": (c_bool, [H, fief_property_key_t, c_int32, P(fief_value_t)]),
    "fief_set_aggregate": (c_bool, [H, fief_property_key_t, c_int32, P(fief_value_t)]),
    "fief_map_aggregate": (c_bool, [H, fief_property_key_t, c_int32, P(fief_value_t)]),
    # files
    "fief_file_verify": (c_bool, [c_char_p, fief_report_fn, c_void_p, P(c_size_t)]),
    "fief_file_copy": (c_bool, [c_char_p, c_char_p, fief_report_fn, c_void_p, P(c_size_t)]),
    "fief_realm_write_copy": (c_bool, [H, c_char_p, fief_report_fn, c_void_p, P(c_size_t)]),
    # notifications
    "fief_realm_add_notification_callback": (H, [H, fief_realm_notification_fn, c_void_p, fief_free_fn]),
    "fief_realm_get_notification_fd": (c_bool, [H, P(ctypes.c_int)]),
    "fief_realm_set_wakeup": (c_bool, [H, fief_wakeup_fn, c_void_p, fief_free_fn]),
    "fief_realm_deliver_notifications": (c_bool, [H, P(c_bool)]),
    "fief_realm_set_autorefresh": (c_bool, [H, c_bool]),
    "fief_realm_get_autorefresh": (c_bool, [H, P(c_bool)]),
    # results notifications
    "fief_results_add_notification_callback": (H, [H, P(c_char_p), c_size_t, fief_collection_changes_fn, c_void_p,
                                                   fief_free_fn]),
    "fief_collection_changes_get_counts": (c_bool, [H, P(c_size_t), P(c_size_t), P(c_size_t), P(c_size_t)]),
    "fief_collection_changes_get_flags": (c_bool, [H, P(c_bool), P(c_bool), P(c_bool)]),
    "fief_collection_changes_get_indices": (c_bool, [H, c_size_t, P(c_size_t), P(c_size_t), P(c_size_t), P(c_size_t),
                                                     P(c_size_t), P(c_size_t)]),
    "fief_collection_changes_get_num_ranges": (c_bool, [H, P(c_size_t), P(c_size_t), P(c_size_t), P(c_size_t)]),
    "fief_collection_changes_get_ranges": (c_bool, [H, c_size_t, P(fief_index_range_t), P(fief_index_range_t),
                                                    P(fief_index_range_t), P(fief_index_range_t)]),
    "fief_collection_changes_get_error": (c_bool, [H, P(c_bool), P(fief_error_t)]),
    # object notifications
    "fief_object_add_notification_callback": (H, [H, P(c_char_p), c_size_t, fief_object_notification_fn, c_void_p,
                                                  fief_free_fn]),
    "fief_object_changes_is_deleted": (c_bool, [H, P(c_bool)]),
    "fief_object_changes_get_count": (c_bool, [H, P(c_size_t)]),
    "fief_object_changes_get_properties": (c_bool, [H, P(fief_property_key_t), c_size_t, P(c_size_t)]),
    "fief_object_changes_get_old_value": (c_bool, [H, fief_property_key_t, P(fief_value_t), P(c_bool)]),
    "fief_object_changes_get_new_value": (c_bool, [H, fief_property_key_t, P(fief_value_t), P(c_bool)]),
    # commit without notifying
    "fief_realm_commit_without_notifying": (c_bool, [H, P(H), c_size_t]),
    # sectioned results changes
    "fief_collection_changes_by_section": (H, [H, P(c_int64), c_size_t, P(c_int64), c_size_t, P(c_int64)]),
    "fief_section_changes_get_counts": (c_bool, [H, P(c_size_t), P(c_size_t), P(c_size_t), P(c_size_t),
                                                 P(c_size_t)]),
    "fief_section_changes_get_index_paths": (c_bool, [H, c_size_t, P(fief_index_path_t), P(fief_index_path_t),
                                                      P(fief_index_path_t)]),
    "fief_section_changes_get_sections": (c_bool, [H, c_size_t, P(c_size_t), P(c_size_t)]),
    # list, set and map notifications
    "fief_list_add_notification_callback": (H, [H, P(c_char_p), c_size_t, fief_collection_changes_fn, c_void_p,
                                                fief_free_fn]),
    "fief_set_add_notification_callback": (H, [H, P(c_char_p), c_size_t, fief_collection_changes_fn, c_void_p,
                                               fief_free_fn]),
    "fief_map_add_notification_callback": (H, [H, P(c_char_p), c_size_t, fief_map_changes_fn, c_void_p, fief_free_fn]),
    "fief_map_changes_get_counts": (c_bool, [H, P(c_size_t), P(c_size_t), P(c_size_t)]),
    "fief_map_changes_get_flags": (c_bool, [H, P(c_bool), P(c_bool), P(c_bool)]),
    "fief_map_changes_get_keys": (c_bool, [H, c_size_t, P(fief_string_t), P(fief_string_t), P(fief_string_t)]),
    "fief_map_changes_get_error": (c_bool, [H, P(c_bool), P(fief_error_t)]),
}


class _Missing:
    """Stands in for a function the loaded library does not export."""

    def __init__(self, name: str, path: str):
        self.name = name
        self.path = path

    def __call__(self, *args: Any) -> Any:
        raise errors.UnsupportedOperationError(
            f"{self.name} is not exported by {self.path} (the engine does not implement it yet?)")


class Library:
    """The loaded libfief with every prototype of fief.h bound."""

    if TYPE_CHECKING:
        # The functions of PROTOTYPES, set as attributes in __init__.
        def __getattr__(self, name: str) -> Any: ...

    def __init__(self, path: str):
        self.path = path
        try:
            self.dll = ctypes.CDLL(path)
        except OSError as exc:
            raise errors.LibraryNotFoundError(f"cannot load libfief from {path}: {exc}") from exc
        self.missing: list[str] = []
        for name, (restype, argtypes) in PROTOTYPES.items():
            try:
                fn = getattr(self.dll, name)
            except AttributeError:
                setattr(self, name, _Missing(name, path))
                self.missing.append(name)
                continue
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)
        self.version_number = self._check_version()
        try:
            raw = self.fief_version_string()
            self.version_string = raw.decode() if raw else None
        except errors.UnsupportedOperationError:
            self.version_string = None

    def _check_version(self) -> int:
        if isinstance(self.fief_version_number, _Missing):
            raise errors.LibraryVersionError(f"{self.path} does not export fief_version_number")
        number = int(self.fief_version_number())
        expected = EXPECTED_VERSION_NUMBER
        why = _version.incompatibility(number, expected)
        if why is not None:
            raise errors.LibraryVersionError(
                f"libfief {_version.dotted(number)} at {self.path} cannot serve this binding, "
                f"built for libfief {_version.dotted(expected)}: {why}; install the fief package "
                f"matching that library, or point FIEF_LIBRARY at a libfief {_version.dotted(expected)} "
                f"or a newer {_version.split(expected)[0]}.x"
                + (f".{_version.split(expected)[1]}" if _version.split(expected)[0] == 0 else "")
                + " library")
        return number

    # -- errors ----------------------------------------------------------

    def last_error(self, what: str = "") -> errors.FiefError:
        """The exception for the calling thread's last failure."""
        err = fief_error_t()
        try:
            have = self.fief_get_last_error(ctypes.byref(err))
        except errors.UnsupportedOperationError:
            have = False
        if not have:
            return errors.FiefError(f"{what or 'a Fief call'} failed without reporting an error")
        message = err.message.decode("utf-8", "replace") if err.message else ""
        path = os.fsdecode(err.path) if err.path else None
        return errors.make_error(int(err.code), int(err.categories), message, path)

    def check(self, ok: bool, what: str = "") -> None:
        if not ok:
            raise self.last_error(what)

    def check_handle(self, handle: int | None, what: str = "") -> int:
        if not handle:
            raise self.last_error(what)
        return handle


_lock = threading.Lock()
_library: Library | None = None
_shutting_down = False

_SUFFIX = {"darwin": ".dylib", "win32": ".dll"}.get(sys.platform, ".so")
_BUILD_OUTPUTS = (
    ("build", "lib", "libfief" + _SUFFIX),  # the CMake build
    ("build", "libfief" + _SUFFIX),
    (".build", "release", "libfief" + _SUFFIX),
    (".build", "debug", "libfief" + _SUFFIX),
)


def candidate_paths() -> list[str]:
    """Where the library is looked for, in order (FIEF_LIBRARY is handled apart)."""
    found: list[str] = []
    here = Path(__file__).resolve().parent
    # The copy an installed package carries (setup.py puts it there).
    bundled = here / ("libfief" + _SUFFIX)
    if bundled.is_file():
        found.append(str(bundled))
    for directory in (here, *here.parents):
        for parts in _BUILD_OUTPUTS:
            candidate = directory.joinpath(*parts)
            if candidate.is_file():
                found.append(str(candidate))
    system = ctypes.util.find_library("fief")
    if system:
        found.append(system)
    return found


def find_library() -> str:
    env = os.environ.get("FIEF_LIBRARY")
    if env:
        if not os.path.exists(env):
            raise errors.LibraryNotFoundError(f"FIEF_LIBRARY={env} does not exist")
        return env
    candidates = candidate_paths()
    if not candidates:
        raise errors.LibraryNotFoundError(
            "libfief not found: set FIEF_LIBRARY to the path of libfief" + _SUFFIX +
            ", or build it (swift build --product fief) in the repository")
    return candidates[0]


def load(path: str | None = None) -> Library:
    """Load (once) and return the library; `path` overrides the lookup."""
    global _library
    with _lock:
        if _library is None:
            _library = Library(path or find_library())
        elif path is not None and os.path.realpath(path) != os.path.realpath(_library.path):
            raise errors.LibraryError(f"libfief is already loaded from {_library.path}")
        return _library


def lib() -> Library:
    library = _library
    if library is not None:
        return library
    return load()


def loaded() -> Library | None:
    """The library if it is loaded and usable (not during interpreter shutdown)."""
    if _shutting_down:
        return None
    return _library


def _at_exit() -> None:
    # After this point no finaliser calls into the library any more: the
    # process is going away and the OS reclaims everything (LMDB aborts any
    # open transaction by itself).
    global _shutting_down
    _shutting_down = True


import atexit  # noqa: E402

atexit.register(_at_exit)
