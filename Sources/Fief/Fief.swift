// Fief: the RealmSwift-compatible Swift overlay over Fief's C ABI (fief.h).
//
// This module imports only the C header's module (CFief); the engine behind
// it is reached solely through the C functions, exactly as from C or Python.
// Code written for RealmSwift (local-only, v20) compiles after replacing
// `import RealmSwift` with `import Fief`, for the parts implemented so far:
// Object/@Persisted with scalar properties, to-one links (`DogToy?`),
// EmbeddedObject properties, LinkingObjects (`@Persisted(originProperty:)`),
// PersistableEnum and (Failable)CustomPersistable properties, legacy
// `let` RealmProperty/RealmOptional/List/MutableSet/Map members, KVC and `init(value:)`,
// Codable models, the dynamic API (DynamicObject), Realm,
// Realm.Configuration, Results, AnyRealmCollection, List (of values, links
// and embedded objects), MutableSet (of values and links), Map (string keys
// to values, links and embedded objects; everything on the Map page but
// notifications, which the C ABI does not have yet), AnyRealmValue (mixed
// properties and collection elements, links to any class, nested lists and
// dictionaries), ObjectId and Decimal128 (with its arithmetic).
//
// Threading (a deliberate difference from RealmSwift): a live realm, its
// objects and its results may be used from any thread, one call at a time
// (the C layer serialises calls on one realm with its lock); RealmSwift
// confines them to the thread that opened them and traps elsewhere.  A write
// transaction still belongs to the thread that began it, and `Realm()` keeps
// one realm per thread and configuration, so code written for RealmSwift's
// rules runs unchanged.  Frozen realms and objects are read from any thread
// at the same time, as in RealmSwift.
// Notifications (`Realm.observe`) are delivered where the first `observe`
// of a realm was called: on the main thread through DispatchQueue.main, on
// another thread through that thread's RunLoop, which must run (as in
// RealmSwift); the realm's own commit, refresh and beginWrite call
// `.didChange` at once on the calling thread (Notifications.swift).
// `Object.observe` is delivered the same way, or on the queue it is given
// with the object read in a realm of its own (ObjectNotifications.swift).
//
// Values and descriptions (deliberate differences from RealmSwift, all small):
// - `Decimal128(value: NSNull())` (or nil) is a plain NaN, written "NaN";
//   RealmSwift's is realm-core's null decimal, written "NULL".  Otherwise
//   Decimal128 converts and prints as RealmSwift's (realm-core's text with
//   trailing zeros dropped, "1E-1", "+1234...E-4" beyond 64-bit coefficients;
//   doubles to 15 significant digits; text that is not a number is NaN).
// - Descriptions follow RealmSwift's layout and five-level limit, and a
//   mixed value's nested collections count as levels; they print as
//   `List<mixed>` / `Map<string, mixed>` where RealmSwift leaks its
//   Objective-C names (`RLMArray<mixed>`, `RLMDictionary<string, mixed>`).
//   A Map lists at most 100 entries, as RealmSwift's code means to (its
//   count never advances, so it prints them all).
// - Codable (AnyRealmValue's is Fief's own) refuses values nested more than
//   100 coding levels with an EncodingError/DecodingError, where a recursive
//   coder would exhaust the stack (FiefCodingDepth).
//
// Predicate format specifiers (deliberate differences from NSPredicate):
// `%d`, `%ld`, `%u`... take any number and never narrow it to the
// specifier's C width (`%d` with 2^40 is 2^40), and a string, null or list
// for a number specifier traps instead of being read as a number; `%s`,
// `%c`, `%p` and `%%` outside quotes trap (pass text with `%@`).
// `index(matching:)` on an unmanaged List runs the query in Realm's query
// language (not NSPredicate's evaluation) on copies of the elements
// (objects with what they link to, embedded objects, values) in a scratch
// in-memory realm; a predicate that is only `SELF == %@` or `SELF IN %@` is
// answered in memory with `isEqual`, as NSPredicate answers it.  Other
// uses of `SELF` with objects in a larger predicate on an unmanaged list
// trap.  On managed results, `SELF == %@`, `SELF != %@` and `SELF IN %@`
// with objects are answered by identity (Fief's query language has `self`
// over objects), where RealmSwift's query builder refuses them: a
// deliberate extension, not a difference a RealmSwift app can meet.
// An invalid GEOWITHIN shape is named as RealmSwift names it (realm-core's
// notation); the reason after it is Fief's geometry's, worded after
// realm-core's but not S2's text in every case.
//
// Copying (a deliberate difference): `create` given a graph with cycles
// (A → B → A, unmanaged or of another realm) copies each object on the path
// once and links the copy back, so the copy has the same cycle; RealmSwift's
// copy recurses without end there (or, with primary keys and `.error`,
// meets its own first copy as a duplicate key).  Objects reached again
// without a cycle (twice in a list, by two paths) are copied again, as in
// RealmSwift.
//
// Design notes
// - @Persisted keeps the unmanaged value in the wrapper (enum storage:
//   noDefault / unmanaged(value) / managed(index) / probe).  Managed state
//   lives on the object (`ObjectBase._fiefManaged`: C object handle, realm,
//   class binding); the static `_enclosingInstance` subscript checks it first
//   and then reads/writes the row with fief_object_get_value/_set_value.  The
//   property's index is found once per class and storage key path by writing a
//   probe through the key path into a throwaway instance and finding it with
//   Mirror; the wrapper then caches `.managed(index:row:)`.
// - Field table (Internal/FieldTable.swift): where each wrapper (or `let`
//   RealmProperty) lies inside instances of a class, from the standard
//   library's reflection SPI `_forEachField` (the metadata Mirror reads; the
//   role of ivar_getOffset in RealmSwift), checked once per class against
//   Mirror with probes.  It serves what has no key path: setting an
//   unmanaged property by name (KVC, `init(value:)`), and binding every
//   wrapper to the row when an object becomes managed (so Codable can tell
//   managed wrappers from unmanaged ones and read the row).  Without a
//   valid table a class still works through its declarations; only by-name
//   writes on unmanaged objects trap.
// - Programmer errors trap (preconditionFailure) where RealmSwift raises an
//   Objective-C exception: unknown KVC keys, values of the wrong type,
//   `objects(Object.self)`, classes not in the realm; a non-optional enum
//   or FailableCustomPersistable property whose stored value does not
//   convert traps on read, with the value in the message (optional ones
//   read nil).
// - Schema discovery: Mirror over `T.init()`, labels `_name`, superclass
//   mirrors first; class name `String(describing:)` or `_realmObjectName()`.
// - Default schema: every Object and EmbeddedObject subclass of the program,
//   found at the first open from the Swift runtime's type metadata sections
//   (Internal/ClassDiscovery.swift), as RealmSwift lists the Objective-C
//   runtime's classes; then any class instantiated later (ObjectBase.init
//   records it).  Deliberate difference: where RealmSwift refuses two model
//   classes of one name (or a class nested in another type without an
//   `@objc` name), Fief, which cannot rename classes, leaves that name out
//   of the discovered default schema; each such class joins a realm's schema
//   when first used, the first used keeping the name in later opens.  A
//   class whose `_realmIgnoreClass()` is true is left out, as in RealmSwift;
//   with `objectTypes`, `realm.schema` shows only those classes and the
//   classes they link to.  A type first used on an open realm is added
//   to its schema additively with fief_realm_update_schema, inside a write
//   transaction too (a cancel undoes it, and the overlay forgets the binding).
//   Freezing in such a write gives the version the write began from, whose
//   schema lacks the class (a frozen realm of it traps for that class, as
//   for any class it does not manage).
// - `Realm()` twice on one thread with the same configuration shares one C
//   realm (as RealmSwift's per-thread cache), so nested code sees the write.
// - `Realm.invalidate()` bumps a generation counter: objects and results made
//   earlier report isInvalidated (the C layer keeps them usable).
// - List (List.swift): unmanaged, an array in the List instance; the
//   wrapper of a managed object caches one live List per property
//   (`.managedCollection`), and binding an object to its row turns the List
//   instances it holds into live ones (RealmSwift's promotion), after which
//   `Realm.add` writes the elements it copied first.  Assigning a list
//   property replaces contents.  Queries and sorts go through
//   fief_list_to_results: a list of objects gives Results of objects, a list
//   of values Results of values (`Results<Int>`, read with
//   fief_results_get_value; predicates over `self`, sorts by "self").
//   Aggregates of managed collections are the library's
//   (fief_results_aggregate, fief_list_aggregate); unmanaged lists aggregate
//   in the overlay, and cannot filter or sort (a trap, as in RealmSwift).
// - MutableSet and Map (MutableSet.swift, Map.swift, Collections.swift)
//   follow List: a property of any collection kind is a
//   `FiefCollectionProtocol` (schema discovery gives its
//   FIEF_COLLECTION_* from the type), unmanaged state in the instance,
//   promotion on add, one cached live instance per managed property, reads
//   in batches (fief_set_get_range, fief_map_get_entries).  Set algebra
//   between two sets of one realm runs in the library (fief_set_form_union,
//   ...), otherwise element by element.  Managed sets and maps query and
//   sort as live Results (fief_set_to_results, fief_map_to_results: of
//   objects, or of values over `self`) and aggregate in the library
//   (fief_set_aggregate, fief_map_aggregate); unmanaged ones aggregate in
//   the overlay and trap for queries and sorts, as RealmSwift does.  A map
//   key the library refuses (`.`, a leading `$`) traps, as RealmSwift throws.
// - AnyRealmValue (AnyRealmValue.swift): a `_Persistable` of type
//   FIEF_TYPE_MIXED whose fief_value_t carries each value's own type.  Reads
//   that may meet a nested collection know where the value lives (a
//   `FiefMixedSlot`: a row's property, a list position, a map key) and get
//   its handle from there (fief_object_get_list / fief_list_get_map / ...);
//   writes of `.list` / `.dictionary` store an empty nested collection, then
//   fill it from a detached (unmanaged, deep) copy read before the write.
//   A link reads as an instance of the model class bound to its class key
//   (RealmCore.mixedLinkedObject), else as a DynamicObject.  Unmanaged
//   collections of mixed values compare elements by Realm's rules, as the
//   library does for managed ones.  Aggregates of managed mixed collections
//   are the library's (fief_list_aggregate ...); those of unmanaged ones
//   are computed in the overlay by the same rules (FiefMixedAggregate).
// - Type-safe queries (Query.swift): `where {}` hands its closure a
//   `Query<Element>` whose members, operators and methods build a tree;
//   the tree is written as a predicate in the query language, with `$0`,
//   `$1`... for every value it compares with (only key paths and geo shapes
//   are written into the text), and `where` passes text and values to
//   `filter` (fief_results_filter) on the collection's live results, so it
//   means exactly what the string filter means.  The text is RealmSwift's
//   `Query` output in the engine's spelling (`$n` for `%@`, `@keys`/`@values`,
//   `GEOWITHIN`).  Member names come from the key-path recorder
//   (Internal/KeyPathRecorder.swift): a key path is read on a throwaway
//   instance whose @Persisted accessors record their names and hand back
//   recording links and collections, so `\Person.dogs[0].name` is
//   `dogs.name`; key-path sorts and the other key-path APIs use it too.
// - Class projections (Projection.swift): `Projection<Root>` holds only its
//   root object; each `@Projected` property is a key path of the root,
//   evaluated on it at every read (so reads are live, and key paths may end
//   in computed properties) and assigned through it on write (a write
//   transaction, as for the root; a non-writable key path traps).  Each
//   projection class's schema (Mirror over the wrappers, superclasses
//   first; origin paths from the key-path recorder) is built once, when its
//   first projection is made, and cached: a key path reading no persisted
//   property traps then, as in RealmSwift.  `projectTo` on a List or
//   MutableSet of objects gives a live `ProjectedCollection` mapping each
//   object through a key path.  `realm.objects(P.self)` is the root class's
//   results; `Results` wraps each object it reads in a new projection.
//   Equality is RealmSwift's (same instance, or same row of the same realm
//   version), with a hash that agrees with it.  `observe` watches the root
//   object and reports changes by projected property name.
// - Sectioned results (SectionedResults.swift): `sectioned(by:...)` sorts
//   the collection's live results (fief_results_sort) and splits them by
//   key as realm-core does (sections in order of each key's first
//   appearance, an element joining its key's section even out of sort
//   order, keys compared as Realm compares mixed values, links refused).  A
//   `SectionedResults` and its `ResultsSection`s share one store holding
//   only the sections' keys and positions; it computes them again in one
//   pass when the realm's version (fief_realm_get_version) or invalidation
//   generation has moved since, or on every read inside a write
//   transaction.  A key path that is a persisted property itself (the
//   recorder saw exactly that key path read) is read with
//   fief_results_get_values, without object handles; closures, computed
//   properties and projections' key paths run on each element.  Frozen
//   sections copy the layout of their version.  No `observe` yet (no notifications in the C ABI).
// - Default file: `default.realm` in the current directory.
// - Copy rules (Internal/ObjectCopying.swift), RealmSwift's: `create` copies
//   what it is given (unmanaged objects stay unmanaged, objects of other
//   realms are copied, objects of this realm are linked), `add` adopts;
//   nested objects with a primary key get the update policy; a managed
//   embedded object never becomes a List element or Map value (a trap).
//   `add(_:update: .modified)` updates an existing object's embedded
//   objects, and lists and maps of them, in place.  Difference: `add`
//   writes collection properties before to-one links, so when
//   one graph holds two versions of an object with the same primary key,
//   the link's is the one kept.

import CFief

/// The version of the C library (fief_version_string) this overlay runs on.
public var fiefLibraryVersion: String { String(cString: fief_version_string()) }
