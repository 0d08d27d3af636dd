// Handles of collections nested in mixed values (fief.h, "Nested
// collections"): the list or dictionary a mixed property, a list element or
// a map value holds, each a live `List<AnyRealmValue>` /
// `Map<String, AnyRealmValue>` on its own handle.

import CFief
import Foundation

extension FiefMixedSlot {
    /// The nested list this slot holds, on a new handle (fief_object_get_list
    /// on a mixed property, fief_list_get_list, fief_map_get_list).
    func nestedList() -> ManagedList {
        switch self {
        case .property(let row, let index):
            guard let raw = fief_object_get_list(row.handle.raw, row.binding.propertyKeys[index]) else {
                row.trapForAccess(CError.last(), writing: false)
            }
            return ManagedList(row: row, index: index, nested: CHandle(raw), path: .property)
        case .listElement(let list, let position):
            guard let raw = fief_list_get_list(list.handle.raw, position) else {
                list.trap(CError.last(), writing: false, index: position)
            }
            return ManagedList(row: list.row, index: list.index, nested: CHandle(raw),
                               path: (list.nestedPath ?? .property).appending(.position(position)))
        case .mapValue(let map, let key):
            let arena = _FiefArena()
            guard let raw = withExtendedLifetime(arena, { fief_map_get_list(map.handle.raw, arena.string(key).u.string) }) else {
                map.trap(CError.last(), writing: false)
            }
            return ManagedList(row: map.row, index: map.index, nested: CHandle(raw),
                               path: (map.nestedPath ?? .property).appending(.key(key)))
        }
    }

    /// The nested dictionary this slot holds, on a new handle
    /// (fief_object_get_map on a mixed property, fief_list_get_map,
    /// fief_map_get_map).
    func nestedMap() -> ManagedMap {
        switch self {
        case .property(let row, let index):
            guard let raw = fief_object_get_map(row.handle.raw, row.binding.propertyKeys[index]) else {
                row.trapForAccess(CError.last(), writing: false)
            }
            return ManagedMap(row: row, index: index, nested: CHandle(raw), path: .property)
        case .listElement(let list, let position):
            guard let raw = fief_list_get_map(list.handle.raw, position) else {
                list.trap(CError.last(), writing: false, index: position)
            }
            return ManagedMap(row: list.row, index: list.index, nested: CHandle(raw),
                              path: (list.nestedPath ?? .property).appending(.position(position)))
        case .mapValue(let map, let key):
            let arena = _FiefArena()
            guard let raw = withExtendedLifetime(arena, { fief_map_get_map(map.handle.raw, arena.string(key).u.string) }) else {
                map.trap(CError.last(), writing: false)
            }
            return ManagedMap(row: map.row, index: map.index, nested: CHandle(raw),
                              path: (map.nestedPath ?? .property).appending(.key(key)))
        }
    }
}
