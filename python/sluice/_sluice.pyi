"""sluice's compiled bindings; use the package `sluice` (docs/python.md)"""



def reduce(x: object, op: str = 'sum', *, algorithm: str = 'automatic', out: object | None = None, stream: object | None = None) -> object:
    """0-d array: op over every element (sum, prod, min, max)."""

def inclusive_scan(x: object, op: str = 'sum', *, init: object | None = None, algorithm: str = 'automatic', out: object | None = None, stream: object | None = None) -> object: ...

def exclusive_scan(x: object, op: str = 'sum', *, init: object | None = None, algorithm: str = 'automatic', out: object | None = None, stream: object | None = None) -> object: ...

def segmented_inclusive_scan(values: object, *, flags: object | None = None, offsets: object | None = None, op: str = 'sum', algorithm: str = 'automatic', out: object | None = None, stream: object | None = None) -> object: ...

def segmented_exclusive_scan(values: object, *, flags: object | None = None, offsets: object | None = None, op: str = 'sum', init: object | None = None, algorithm: str = 'automatic', out: object | None = None, stream: object | None = None) -> object: ...

def segmented_reduce(values: object, *, flags: object | None = None, offsets: object | None = None, op: str = 'sum', init: object | None = None, algorithm: str = 'automatic', stream: object | None = None) -> object: ...

def inclusive_scan_by_key(keys: object, values: object, op: str = 'sum', *, out: object | None = None, stream: object | None = None) -> object: ...

def exclusive_scan_by_key(keys: object, values: object, op: str = 'sum', *, init: object | None = None, out: object | None = None, stream: object | None = None) -> object: ...

def reduce_by_key(keys: object, values: object, op: str = 'sum', *, stream: object | None = None) -> tuple: ...

def first_order_linear_recurrence(a: object, b: object, *, out: object | None = None, stream: object | None = None) -> object: ...

def max_plus_recurrence(a: object, b: object, *, out: object | None = None, stream: object | None = None) -> object: ...

def select_flagged(x: object, flags: object, *, stream: object | None = None) -> object: ...

def select_if(x: object, cmp: str, value: object, *, stream: object | None = None) -> object: ...

def unique(x: object, *, stream: object | None = None) -> object: ...

def stable_partition(x: object, cmp: str, value: object, *, out: object | None = None, stream: object | None = None) -> tuple: ...

def stable_partition_3way(x: object, pivot: object, *, out: object | None = None, stream: object | None = None) -> tuple: ...

def transpose(x: object, *, algorithm: str = 'automatic', out: object | None = None, stream: object | None = None) -> object: ...

def gather(values: object, indices: object, *, strict: bool = False, out: object | None = None, stream: object | None = None) -> object: ...

def scatter(values: object, indices: object, out: object, *, semantics: str = 'any_writer', algorithm: str = 'automatic', strict: bool = False, stream: object | None = None) -> object: ...

def multisplit(keys: object, m: int, *, values: object | None = None, bucket: str = 'identity', delta: object = 1, first_bit: int = 0, bits: int = 0, splitters: object | None = None, algorithm: str = 'automatic', strict: bool = False, stream: object | None = None) -> tuple: ...

def radix_sort(keys: object, *, begin_bit: int = 0, end_bit: int = -1, descending: bool = False, algorithm: str = 'automatic', out: object | None = None, stream: object | None = None) -> object: ...

def radix_sort_pairs(keys: object, values: object, *, begin_bit: int = 0, end_bit: int = -1, descending: bool = False, algorithm: str = 'automatic', stream: object | None = None) -> tuple: ...

def argsort(keys: object, *, descending: bool = False, algorithm: str = 'automatic', stream: object | None = None) -> object: ...

def merge_sort(keys: object, values: object | None = None, *, algorithm: str = 'automatic', stream: object | None = None) -> object: ...

def segmented_sort(keys: object, offsets: object, values: object | None = None, *, descending: bool = False, validate_offsets: bool = False, out: object | None = None, out_values: object | None = None, stream: object | None = None) -> object:
    """
    Every segment [offsets[s], offsets[s+1]) of keys stably sorted (keys outside [offsets[0], offsets[-1]) copied through); with values, (keys, values) each value moving with its key. Keys: int32, uint32, int64, uint64, float32, float64 in radix_sort's order (-0.0 before +0.0, NaNs by their sign); offsets: int64 or uint64, segments + 1 non-decreasing entries <= len(keys) (checked on the device, synchronising, with validate_offsets; always on the host); values: 8-byte dtypes, or 4-byte ones with 4-byte keys.
    """

def merge(a: object, b: object, *, a_values: object | None = None, b_values: object | None = None, descending: bool = False, out: object | None = None, out_values: object | None = None, stream: object | None = None) -> object:
    """
    The stable merge of the sorted arrays a and b (ties: a's keys first), flattened, len(a) + len(b) elements; with a_values and b_values, (keys, values). Keys and values as segmented_sort's. Inputs must be sorted in that order (descending when descending=True): unsorted ones give an unspecified permutation on the device and a ValueError naming the input on the host.
    """

def lower_bound(sorted_keys: object, queries: object, *, algorithm: str = 'automatic', queries_sorted: bool = False, out: object | None = None, stream: object | None = None) -> object: ...

def upper_bound(sorted_keys: object, queries: object, *, algorithm: str = 'automatic', queries_sorted: bool = False, out: object | None = None, stream: object | None = None) -> object: ...

def predecessor(sorted_keys: object, queries: object, *, algorithm: str = 'automatic', queries_sorted: bool = False, out: object | None = None, stream: object | None = None) -> object:
    """
    int64: the largest index j with sorted_keys[j] <= q for each query, or -1 where no key is <= q (and for a NaN query): upper_bound - 1 (Karsin Def 6.0.1). Arguments as lower_bound's.
    """

class SearchIndex:
    """
    Sorted keys laid out for batched search (search.cuh's search_index, Karsin 6.1): layout 'sorted' (binary search), 'eytzinger' (level-order binary tree) or 'btree' (level-order B-tree of btree_keys_per_node keys a node; 0: the device's tuning). Built on the device of sorted_keys, on the call's stream, which the constructor then waits for, so that any stream may query it; it owns a copy of the keys (the argument is no longer needed). Host (NumPy) keys are copied and searched by binary search whatever the layout. Queries of the keys' dtype on the index's device; answers int64 indices into the sorted order.
    """

    def __init__(self, sorted_keys: object, layout: str = 'eytzinger', *, btree_keys_per_node: int = 0, stream: object | None = None) -> None: ...

    def lower_bound(self, queries: object, *, out: object | None = None, stream: object | None = None) -> object:
        """int64: the first index j with keys[j] >= q for each query (len(self) if none)."""

    def upper_bound(self, queries: object, *, out: object | None = None, stream: object | None = None) -> object:
        """int64: the first index j with keys[j] > q for each query (len(self) if none)."""

    def predecessor(self, queries: object, *, out: object | None = None, stream: object | None = None) -> object:
        """int64: upper_bound - 1 for each query (-1 where no key is <= q, and for NaN)."""

    def __len__(self) -> int: ...

    @property
    def layout(self) -> str: ...

    @property
    def keys_per_node(self) -> int:
        """B of a btree; 1 for the other layouts"""

    @property
    def dtype(self) -> str: ...

    @property
    def device(self) -> int:
        """the CUDA device of the keys; -1: host memory"""

class SlabHash:
    """
    A GPU hash table (containers/slab_hash.cuh, Ashkiani ch. 5): a map of int32/uint32/int64/uint64 keys to values of the key's width (int, uint or float), or, with value_dtype=None, a set. Duplicates are kept by insert (a multimap), one instance a key by insert_or_assign. Keys are hashed and compared as bits: the bit patterns 0xFF..FF and 0xFF..FE are reserved (-1 and -2 for signed keys): insert and erase raise ValueError naming 'keys' and the index, queries report them absent. It grows (more buckets) as it fills unless grow=False; capacity sizes it at first. device: a CUDA ordinal (default 0) or 'cpu' (a sequential table with the same semantics, NumPy arrays). Every call runs on its stream= or its keys' library's current stream; changes, size and retrieve_all read a status back (synchronising that stream), queries (find, contains, count) are asynchronous.
    """

    def __init__(self, key_dtype: object, value_dtype: object | None = None, *, capacity: int = 0, grow: bool = True, device: object = 0, stream: object | None = None) -> None: ...

    def insert(self, keys: object, values: object | None = None, *, stream: object | None = None) -> None:
        """Inserts every key (with its value for a map); duplicates are kept."""

    def insert_or_assign(self, keys: object, values: object | None = None, *, stream: object | None = None) -> None:
        """
        Sets each key's value, inserting absent keys (equal keys in one batch: one of their values remains); a set inserts the keys not present.
        """

    def erase(self, keys: object, *, stream: object | None = None) -> None:
        """Removes each key's least recent instance (absent keys: nothing)."""

    def find(self, keys: object, default: object | None = None, *, stream: object | None = None) -> object:
        """
        The value of each key's least recent instance: with default=, the values (default where absent); without, (values, found) with 0 where absent and found a bool mask (a second query).
        """

    def contains(self, keys: object, *, stream: object | None = None) -> object:
        """bool: each key present."""

    def count(self, keys: object, *, stream: object | None = None) -> object:
        """uint32: the instances of each key."""

    def size(self, *, stream: object | None = None) -> int:
        """Live elements (synchronises the stream)."""

    def __len__(self) -> int: ...

    def retrieve_all(self, *, like: object | None = None, stream: object | None = None) -> object:
        """
        Every live element in no particular order: keys, or (keys, values) for a map; arrays of the library of like= or of the last keys the table was given.
        """

    def clear(self, *, stream: object | None = None) -> None:
        """Removes every element."""

    @property
    def key_dtype(self) -> str: ...

    @property
    def value_dtype(self) -> str | None: ...

    @property
    def is_map(self) -> bool: ...

    @property
    def device(self) -> int:
        """a CUDA ordinal; -1: the host"""

class Lsm:
    """
    A GPU LSM (containers/lsm.cuh, Ashkiani ch. 4): a batched ordered map of int32/uint32/int64/uint64 keys (every bit pattern usable, ordered as their dtype) to values of the key's width (int, uint or float), in levels of sorted arrays of batch_size * 2^i elements. Updates apply in batch order (the last operation on a key in a batch wins); capacity bounds the resident elements (stale copies and tombstones included: cleanup() drops them; cleanup_stale_fraction > 0 runs it by itself). device: a CUDA ordinal (default 0) or 'cpu' (a std::map with the same semantics). Calls run as SlabHash's: updates and lookups asynchronous, count / range / size read sizes back.
    """

    def __init__(self, key_dtype: object, value_dtype: object, *, batch_size: int = 65536, capacity: int = 16777216, cleanup_stale_fraction: float = 0.0, device: object = 0, stream: object | None = None) -> None: ...

    def insert(self, keys: object, values: object, *, stream: object | None = None) -> None:
        """k -> v for every pair, replacing."""

    def erase(self, keys: object, *, stream: object | None = None) -> None:
        """Removes every key (a tombstone each; absent keys: nothing)."""

    def bulk_build(self, keys: object, values: object, *, stream: object | None = None) -> None:
        """The content replaced by the pairs (the last of equal keys wins): one sort."""

    def lookup(self, queries: object, default: object | None = None, *, stream: object | None = None) -> object:
        """Each query's value: with default=, the values (default where absent); without, (values, found)."""

    def contains(self, queries: object, *, stream: object | None = None) -> object:
        """bool: each query present."""

    def count(self, k1: object, k2: object, *, stream: object | None = None) -> object:
        """uint64: the live keys in [k1[i], k2[i]] (0 where k1[i] > k2[i])."""

    def range(self, k1: object, k2: object, *, stream: object | None = None) -> tuple:
        """
        (offsets uint64, keys, values): query i's live pairs in [k1[i], k2[i]], ascending, at [offsets[i], offsets[i+1]).
        """

    def successor(self, queries: object, *, stream: object | None = None) -> tuple:
        """(keys, values, found): the live pair with the smallest key >= q (found False: none)."""

    def predecessor(self, queries: object, *, stream: object | None = None) -> tuple:
        """(keys, values, found): the live pair with the largest key <= q (found False: none)."""

    def cleanup(self, *, stream: object | None = None) -> None:
        """Drops stale copies and tombstones (the answers do not change)."""

    def clear(self, *, stream: object | None = None) -> None:
        """Removes every element."""

    def size(self, *, stream: object | None = None) -> int:
        """Live keys (synchronises the stream)."""

    def __len__(self) -> int: ...

    @property
    def key_dtype(self) -> str: ...

    @property
    def value_dtype(self) -> str: ...

    @property
    def device(self) -> int:
        """a CUDA ordinal; -1: the host"""

def hash_unique(keys: object, *, stream: object | None = None) -> object:
    """
    The distinct keys (int32, uint32, int64, uint64; every value) in no particular order, by a hash table (containers/group_by.cuh's unique; no sort; the host: first occurrences in order). Flattened; reads the count back (synchronises the stream). sluice.unique is the sorted-runs one.
    """

def group_by_reduce(keys: object, values: object, op: str = 'sum', *, stream: object | None = None) -> tuple:
    """
    (distinct keys, op over each key's values) in no particular order, by a hash table (containers/group_by.cuh; no sort; the host: first occurrences in order). Keys as hash_unique's; values a numeric dtype of the keys' width; op: sum, min, max (float sums round differently run to run). Reads the count back (synchronises).
    """

def string_match(text: object, pattern: object, *, algorithm: str = 'automatic', alphabet_bits: int = 8, verification: str = 'exact', check_alphabet: bool = True, stream: object | None = None) -> object:
    """
    int64 positions r, ascending, where text[r:r+len(pattern)] == pattern (overlapping matches all count). text: a uint8/int8 array or bytes; pattern: bytes, str (UTF-8) or a 1-byte array. Counts first, then writes the positions: two passes, reading the count back (synchronises the stream). algorithm: automatic, crk, crk_recurrence, drk, drk_wom32, drk_wom64, hrk, drk_2s; alphabet_bits (1-8): characters compare by their low bits, checked unless check_alphabet=False; verification: exact or fingerprint (the seed's probabilistic matchers).
    """

def string_match_count(text: object, pattern: object, *, algorithm: str = 'automatic', alphabet_bits: int = 8, verification: str = 'exact', check_alphabet: bool = True, stream: object | None = None) -> int:
    """
    The number of matches of pattern in text (an int: synchronises the stream); arguments as string_match's.
    """

def string_match_bitmap(text: object, pattern: object, *, algorithm: str = 'automatic', alphabet_bits: int = 8, verification: str = 'exact', check_alphabet: bool = True, out: object | None = None, stream: object | None = None) -> object:
    """
    uint32 words, bit r % 32 of word r // 32 set where a match starts at r: ceil((n - m + 1) / 32) words (0 when the pattern is longer than the text). Asynchronous (unless alphabet_bits < 8 is checked).
    """

def multi_string_match(text: object, patterns: object, *, alphabet_bits: int = 8, check_alphabet: bool = True, stream: object | None = None) -> tuple:
    """
    (positions int64, pattern_ids int32): every match of any of the patterns (a sequence of bytes or str), sorted by position and then pattern index; overlapping matches and patterns that are prefixes of others all count. Two passes (count, then the hits), each reading the count back.
    """

def histogram_even(samples: object, bins: int, lower: object, upper: object, *, weights: object | None = None, algorithm: str = 'automatic', accumulate: bool = False, out: object | None = None, stream: object | None = None) -> object: ...

def histogram_range(samples: object, splitters: object, *, weights: object | None = None, algorithm: str = 'automatic', accumulate: bool = False, out: object | None = None, stream: object | None = None) -> object: ...

def bincount(samples: object, m: int, *, weights: object | None = None, algorithm: str = 'automatic', accumulate: bool = False, out: object | None = None, stream: object | None = None) -> object: ...

def multireduce(labels: object, values: object, m: int, op: str = 'sum', *, algorithm: str = 'automatic', accumulate: bool = False, strict: bool = False, deterministic: bool = False, sets: int = 0, partial_sort_bits: int = -1, out: object | None = None, stream: object | None = None) -> object: ...

def multiscan_inclusive(labels: object, values: object, m: int, op: str = 'sum', *, totals: bool = False, algorithm: str = 'automatic', strict: bool = False, out: object | None = None, stream: object | None = None) -> object: ...

def multiscan_exclusive(labels: object, values: object, m: int, op: str = 'sum', *, totals: bool = False, algorithm: str = 'automatic', strict: bool = False, out: object | None = None, stream: object | None = None) -> object: ...

def multitag(labels: object, m: int, *, counts: bool = False, algorithm: str = 'automatic', strict: bool = False, stream: object | None = None) -> object: ...

def info(device: int = 0) -> dict: ...

def device_count() -> int: ...

def synchronize(x: object, *, stream: object | None = None) -> None:
    """
    Waits for the stream a call on x would use (explicit, else x's library's current stream).
    """
