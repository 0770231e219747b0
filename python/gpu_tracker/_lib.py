# SPDX-License-Identifier: MIT
"""The C library, loaded with ctypes: where it is found, the prototypes of the
functions the package calls, and gt_status values turned into exceptions.

Only pointers and opaque handles cross the boundary, plus gt_options and the
options of the operations the package calls (gt_analyze_options,
gt_compare_options), whose fields of struct version STRUCT_VERSION are
declared here once (tests check them against include/gpu_tracker.h).  The
library reads and writes only the fields of the version a struct says it
has, so nothing is padded for fields a later library adds.  Usage is allocated by the library and comes back as
strings (text, or JSON that json.loads reads), so no other C struct layout
is assumed.
"""
import ctypes
import os

__all__ = ['lib', 'check', 'strerror', 'Options', 'AnalyzeOptions', 'CompareOptions', 'LOG_FN', 'Error', 'library_path', 'c_strings']

# gt_status, as the header's enum numbers it (tests check them against
# include/gpu_tracker.h); its texts come from the library's gt_strerror().
(GT_OK, GT_ERR_INVALID, GT_ERR_STATE, GT_ERR_IO, GT_ERR_EXISTS, GT_ERR_NOMEM, GT_ERR_SYS, GT_ERR_NOPROC,
 GT_ERR_FORMAT, GT_ERR_GPU) = range(10)
FORMAT_TEXT, FORMAT_JSON = 0, 1

# gt_status -> the exception the Python package raises for that kind of failure.
_EXCEPTIONS = {
    GT_ERR_INVALID: ValueError,
    GT_ERR_STATE: RuntimeError,
    GT_ERR_IO: OSError,
    GT_ERR_EXISTS: FileExistsError,
    GT_ERR_NOMEM: MemoryError,
    GT_ERR_SYS: OSError,
    GT_ERR_NOPROC: ProcessLookupError,
    GT_ERR_FORMAT: ValueError,
    GT_ERR_GPU: ValueError,
}

LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


class Error(ctypes.Structure):
    _fields_ = [('msg', ctypes.c_char * 512)]

    @property
    def message(self):
        return self.msg.decode('utf-8', 'replace')


# The GT_STRUCT_VERSION of include/gpu_tracker.h that Options below is
# written for: the version that gt_options_init() is given.
STRUCT_VERSION = 4


class Options(ctypes.Structure):
    """gt_options of STRUCT_VERSION, field for field."""
    _fields_ = [
        ('version', ctypes.c_uint),
        ('sleep_time', ctypes.c_double),
        ('ram_unit', ctypes.c_int),
        ('gpu_ram_unit', ctypes.c_int),
        ('time_unit', ctypes.c_int),
        ('n_expected_cores', ctypes.c_int),
        ('gpu_uuids', ctypes.c_char_p),
        ('disable_logs', ctypes.c_int),
        ('gpu_brand', ctypes.c_int),
        ('tracking_file', ctypes.c_char_p),
        ('overwrite', ctypes.c_int),
        ('process_id', ctypes.c_int),
        ('log', LOG_FN),
        ('log_ctx', ctypes.c_void_p),
        ('tree_root', ctypes.c_int),
        ('energy_unit', ctypes.c_int),
        ('on_timepoint', ctypes.c_void_p),
        ('on_timepoint_ctx', ctypes.c_void_p),
        # Version 2.
        ('per_process', ctypes.c_int),
        ('per_gpu', ctypes.c_int),
        ('walk_budget', ctypes.c_double),
        # Version 3.
        ('events', ctypes.c_int),
    ]


class AnalyzeOptions(ctypes.Structure):
    """gt_analyze_options of STRUCT_VERSION, field for field."""
    _fields_ = [
        ('version', ctypes.c_uint),
        ('sub_tracking_file', ctypes.c_char_p),
        ('host', ctypes.c_char_p),
    ]


class CompareOptions(ctypes.Structure):
    """gt_compare_options of STRUCT_VERSION, field for field."""
    _fields_ = [
        ('version', ctypes.c_uint),
        ('statistic', ctypes.c_char_p),
        ('log', LOG_FN),
        ('log_ctx', ctypes.c_void_p),
    ]


def _candidates():
    env = os.environ.get('GPU_TRACKER_LIB')
    if env:
        return [env]  # an explicit choice is never second-guessed
    here = os.path.dirname(os.path.abspath(__file__))
    return [
        os.path.join(here, 'libgputracker.so'),                       # installed with the package
        os.path.join(here, '..', '..', 'build', 'libgputracker.so'),  # a source checkout after `make`
        'libgputracker.so.1',                                         # `make install`, system search path
        'libgputracker.so',
    ]


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f'{path} (not found)')
            continue
        try:
            return ctypes.CDLL(path), os.path.realpath(path) if os.sep in path else path
        except OSError as error:
            tried.append(f'{path} ({error})')
    raise ImportError(
        'gpu_tracker: cannot load the gpu-tracker C library libgputracker.so; build it with `make` '
        'and install the package with `make python`, or set GPU_TRACKER_LIB to its path. Tried: '
        + '; '.join(tried))


lib, library_path = _load()


def _check_version():
    """The library must be the version this package is built for: the
    layout of gt_options above and the functions below are that version's."""
    from ._version import __version__
    fn = getattr(lib, 'gt_version', None)
    if fn is None:
        found = 'a version without gt_version()'
    else:
        fn.restype = ctypes.c_char_p
        fn.argtypes = []
        found = (fn() or b'').decode('utf-8', 'replace')
        if found == __version__:
            return
    raise ImportError(
        f'gpu_tracker: the C library {library_path} is {found}, but this gpu_tracker package '
        f'{__version__} needs libgputracker {__version__}; rebuild it with `make` (and `make python`), '
        'or set GPU_TRACKER_LIB to a library of that version')


_check_version()

_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_S = ctypes.c_char_p
_ERR = ctypes.POINTER(Error)
_STR_OUT = ctypes.POINTER(ctypes.c_void_p)  # char ** whose string is freed by gt_string_free


def _declare(name, restype, *argtypes, required=True):
    fn = getattr(lib, name, None)
    if fn is None:
        if required:
            raise ImportError(f'gpu_tracker: {library_path} lacks the function {name}')
        return None
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_I = ctypes.c_int
_declare('gt_strerror', _S, _I)
_declare('gt_options_init', _I, ctypes.POINTER(Options), ctypes.c_uint)
_declare('gt_ram_unit_parse', _I, _S, ctypes.POINTER(_I))
_declare('gt_time_unit_parse', _I, _S, ctypes.POINTER(_I))
_declare('gt_gpu_brand_parse', _I, _S, ctypes.POINTER(_I))
_declare('gt_gpu_brand_name', _S, _I)
_declare('gt_tracker_new', _I, ctypes.POINTER(Options), _PP, _ERR)
_declare('gt_tracker_start', _I, _P, _ERR)
_declare('gt_tracker_stop', _I, _P, _ERR)
_declare('gt_tracker_usage_new', _I, _P, _PP, _ERR)
_declare('gt_tracker_report', _I, _P, _I, _STR_OUT, _ERR)
_declare('gt_usage_free', None, _PP)
_declare('gt_tracker_free', None, _PP)
_declare('gt_usage_string', _I, _P, _I, _STR_OUT)
_declare('gt_string_free', None, _STR_OUT)
_declare('gt_tracker_add_static', _I, _P, _S, _S, _ERR, required=False)
# Sub-tracking, analysis and comparison: looked up lazily by the classes that
# use them (sub_tracker.py), so the tracker works with a library built before
# they existed.
_declare('gt_subtracker_open', _I, _S, _I, _PP, _ERR, required=False)
_declare('gt_subtracker_mark', _I, _P, _S, _I, _ERR, required=False)
_declare('gt_subtracker_mark_at', _I, _P, _S, _I, ctypes.c_longlong, ctypes.c_double, _ERR, required=False)
_declare('gt_subtracker_free', None, _PP, required=False)
_declare('gt_subtracker_default_path', _I, ctypes.c_char_p, ctypes.c_size_t, _ERR, required=False)
_declare('gt_subtracker_default_path_of', _I, ctypes.c_longlong, ctypes.c_char_p, ctypes.c_size_t, _ERR,
         required=False)
_declare('gt_analyze_options_init', _I, ctypes.POINTER(AnalyzeOptions), ctypes.c_uint, required=False)
_declare('gt_analyze', _I, _S, ctypes.POINTER(AnalyzeOptions), _PP, _ERR, required=False)
_declare('gt_results_string', _I, _P, _I, _STR_OUT, required=False)
_declare('gt_results_free', None, _PP, required=False)
_declare('gt_subtrack_combine', _I, _S, ctypes.POINTER(_S), ctypes.c_size_t, _ERR, required=False)
_declare('gt_subtrack_calls', _I, _S, _S, ctypes.POINTER(ctypes.POINTER(ctypes.c_double)),
         ctypes.POINTER(ctypes.c_size_t), _ERR, required=False)
_declare('gt_calls_free', None, ctypes.POINTER(ctypes.POINTER(ctypes.c_double)), required=False)
_declare('gt_compare_options_init', _I, ctypes.POINTER(CompareOptions), ctypes.c_uint, required=False)
_declare('gt_compare', _I, ctypes.POINTER(_S), ctypes.POINTER(_S), ctypes.c_size_t,
         ctypes.POINTER(CompareOptions), _PP, _ERR, required=False)
_declare('gt_comparison_string', _I, _P, _I, _STR_OUT, required=False)
_declare('gt_comparison_free', None, _PP, required=False)


def require(name):
    """The C function `name`, or NotImplementedError when this build of the
    library does not have it."""
    fn = getattr(lib, name, None)
    if fn is None or fn.argtypes is None:
        raise NotImplementedError(f'gpu_tracker: the C library {library_path} does not provide {name}')
    return fn


def gpu_brands():
    """The GPU brands the library takes ('nvidia', 'amd'), in their numbers'
    order: one per vendor backend of the C library."""
    names = []
    while True:
        name = lib.gt_gpu_brand_name(len(names) + 1)
        if name is None:
            return names
        names.append(name.decode())


def strerror(status):
    """The library's short text for a gt_status (gt_strerror)."""
    return lib.gt_strerror(status).decode('utf-8', 'replace')


def check(status, message=None):
    """Raises the exception for a failed gt_status with the library's message,
    or the status's own text where there is none."""
    if status != GT_OK:
        raise _EXCEPTIONS.get(status, RuntimeError)(message or strerror(status))


def encode(s):
    """A path as the C library takes it.  A NUL byte would silently cut it
    short there: refused, as Python's own file functions refuse it."""
    if s is None:
        return None
    b = os.fsencode(s)
    if b'\0' in b:
        raise ValueError(f'embedded null byte in path {s!r}')
    return b


def c_strings(values):
    """A const char *const[] of the given strings (kept alive by the caller)."""
    arr = (ctypes.c_char_p * len(values))()
    arr[:] = [encode(v) for v in values]
    return arr


def tracker_report(handle, fmt):
    """The tracker's report (gt_tracker_report) in the format, as text: every
    figure of the library, the metric table's own among them."""
    out, err = ctypes.c_void_p(), Error()
    check(lib.gt_tracker_report(handle, fmt, ctypes.byref(out), ctypes.byref(err)), err.message)
    try:
        return ctypes.string_at(out.value).decode('utf-8')
    finally:
        lib.gt_string_free(ctypes.byref(out))


def to_string(fn, handle, fmt):
    """Calls a function that formats a report into a malloc'd string
    (gt_usage_string and the like) and returns its text, freeing the C copy
    with gt_string_free."""
    out = ctypes.c_void_p()
    status = fn(handle, fmt, ctypes.byref(out))
    check(status, f'cannot format the report: {strerror(status)}')
    try:
        return ctypes.string_at(out.value).decode('utf-8')
    finally:
        lib.gt_string_free(ctypes.byref(out))
