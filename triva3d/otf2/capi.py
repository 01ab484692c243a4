"""The OTF2 C reader driven through ctypes, with compiled callbacks that append each
event of one location to a flat int64 record buffer (no Python per event).

The `otf2` wheel's extension module exports the whole OTF2 C API; we load it with
ctypes. A location's buffer is HEADER int64 (count, capacity, overflow flag, then a
counter per record kind not drawn) then RECORD int64 per drawn event: kind,
timestamp and four fields (see the record kinds below). A callback that finds the
buffer full sets the flag and interrupts the reader, so a location that holds more
events than its definition says is reported, never overrun.

Where the archive defines attributes, the buffer's fourth header word holds the
address of an attribute area (ATTR_HEADER int64: count, capacity, overflow flag, -,
then ATTR_RECORD int64 per attribute: the index of the record it belongs to, the
attribute's reference, its OTF2_Type and its value's 8 bytes), filled by the drawn
records' callbacks (except Metric's) from their OTF2_AttributeList.
"""
import contextlib
import ctypes
import errno
import mmap
import os
import threading

import _otf2
import numpy as np

from .. import machinecode
from ..kernels import llvm_lock

RECORD = 6
#: Record kinds and their fields (a, b, c, d):
ENTER, LEAVE = 1, 2                      # region
SEND, ISEND = 3, 4                       # peer | comm << 32, tag, bytes, request
ISEND_COMPLETE, IRECV_REQUEST = 5, 6     # -, -, -, request
RECV, IRECV = 7, 8                       # as SEND / ISEND, the peer being the sender
COLL_BEGIN, COLL_END = 9, 10             # comm | op << 32, root, bytes sent, received
METRIC = 11                              # metric, member index, value bits, value type
FORK, JOIN = 12, 13                      # threads requested, paradigm (Thread*)
TEAM_BEGIN, TEAM_END = 14, 15            # team (communicator)
RMA_PUT, RMA_GET = 16, 17                # window | remote rank << 32, bytes, matching id
RMA_COMPLETE = 18                        # window, -, matching id
IO_BEGIN = 19                            # handle | mode << 32, bytes asked, matching id, flags
IO_END = 20                              # handle, bytes done, matching id
TASK_CREATE, TASK_SWITCH, TASK_COMPLETE = 21, 22, 23  # task, team (-1: OmpTask*)
SAMPLE = 24                              # calling context, unwind distance

OK, INTERRUPT = 0, 1  # OTF2_CallbackCode

def _library():
    """The `otf2` wheel's compiled module, which holds the OTF2 C library."""
    import glob
    import os
    found = glob.glob(os.path.join(os.path.dirname(_otf2.__file__), "_otf2*.so"))
    if not found:
        raise ImportError("the otf2 package's compiled module was not found")
    return ctypes.CDLL(found[0])


_lib = _library()
_p = ctypes.c_void_p
_u64 = ctypes.c_uint64


def _fn(name, res, *args):
    f = getattr(_lib, name)
    f.restype, f.argtypes = res, list(args)
    return f


Reader_Open = _fn("OTF2_Reader_Open", _p, ctypes.c_char_p)
Reader_Close = _fn("OTF2_Reader_Close", ctypes.c_int, _p)
Reader_SetSerialCollectiveCallbacks = _fn("OTF2_Reader_SetSerialCollectiveCallbacks",
                                          ctypes.c_int, _p)
Reader_SelectLocation = _fn("OTF2_Reader_SelectLocation", ctypes.c_int, _p, _u64)
Reader_OpenDefFiles = _fn("OTF2_Reader_OpenDefFiles", ctypes.c_int, _p)
Reader_CloseDefFiles = _fn("OTF2_Reader_CloseDefFiles", ctypes.c_int, _p)
Reader_GetDefReader = _fn("OTF2_Reader_GetDefReader", _p, _p, _u64)
Reader_ReadAllLocalDefinitions = _fn("OTF2_Reader_ReadAllLocalDefinitions", ctypes.c_int, _p,
                                     _p, ctypes.POINTER(_u64))
Reader_CloseDefReader = _fn("OTF2_Reader_CloseDefReader", ctypes.c_int, _p, _p)
Reader_OpenEvtFiles = _fn("OTF2_Reader_OpenEvtFiles", ctypes.c_int, _p)
Reader_CloseEvtFiles = _fn("OTF2_Reader_CloseEvtFiles", ctypes.c_int, _p)
Reader_GetEvtReader = _fn("OTF2_Reader_GetEvtReader", _p, _p, _u64)
Reader_CloseEvtReader = _fn("OTF2_Reader_CloseEvtReader", ctypes.c_int, _p, _p)
Reader_RegisterEvtCallbacks = _fn("OTF2_Reader_RegisterEvtCallbacks", ctypes.c_int, _p, _p, _p,
                                  _p)
Reader_ReadAllLocalEvents = _fn("OTF2_Reader_ReadAllLocalEvents", ctypes.c_int, _p, _p,
                                ctypes.POINTER(_u64))
EvtReaderCallbacks_New = _fn("OTF2_EvtReaderCallbacks_New", _p)
EvtReaderCallbacks_Delete = _fn("OTF2_EvtReaderCallbacks_Delete", None, _p)
Error_GetName = _fn("OTF2_Error_GetName", ctypes.c_char_p, ctypes.c_int)
Error_GetDescription = _fn("OTF2_Error_GetDescription", ctypes.c_char_p, ctypes.c_int)


# OTF2 prints its errors on stderr; we keep them instead, for our messages (the
# first one since `errors` was cleared is the cause, the later ones its echoes).
_ERROR_CB = ctypes.CFUNCTYPE(ctypes.c_int, _p, ctypes.c_char_p, _u64, ctypes.c_char_p,
                             ctypes.c_int, ctypes.c_char_p, _p)
_libc = ctypes.CDLL(None)
_libc.vsnprintf.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, _p]
errors = []


@_ERROR_CB
def _on_error(user, file, line, function, code, fmt, va):
    text = ctypes.create_string_buffer(512)
    _libc.vsnprintf(text, 512, fmt, va)
    errors.append(text.value.decode("utf-8", "replace").strip())
    return code


_fn("OTF2_Error_RegisterCallback", _p, _ERROR_CB, _p)(_on_error, None)


# OTF2 reads a file a chunk at a time into memory it allocates, taking a short read
# at the file's end for a whole chunk (otf2_file_posix_read): past a damaged file's
# data it parses what that memory held before, and one archive read twice could
# differ (with the heap's history, the thread). While it reads, glibc fills what it
# allocates with END_OF_CHUNK bytes (mallopt M_PERTURB: perturb ^ 0xff): past the
# data comes a next chunk without a header, an error every time. The setting is the
# process's: every thread's allocations are filled meanwhile (the decoding's too);
# the record buffers are mapped apart (new_buffer), out of its reach. An interrupt
# at the wrong moment can leave it on. (Where libc is not glibc, not done.)
_M_PERTURB, _END_OF_CHUNK = -6, 0x01
_mallopt = getattr(_libc, "mallopt", None)
_filling, _filling_lock = [0], threading.Lock()


def _user_perturb():
    """The fill the user gave glibc (0: none), put back after: the tunable
    glibc.malloc.perturb, else MALLOC_PERTURB_; base 0, 0 to 255, else none."""
    tunables = dict(t.partition("=")[::2]
                    for t in os.environ.get("GLIBC_TUNABLES", "").split(":"))
    text = tunables.get("glibc.malloc.perturb", os.environ.get("MALLOC_PERTURB_", ""))
    try:
        value = int(text.strip(), 0)
    except ValueError:
        return 0
    return value if 0 <= value <= 255 else 0


_PERTURB = _user_perturb()


def _fill(step):
    with _filling_lock:
        _filling[0] += step
        if _mallopt and _filling[0] == (1 if step > 0 else 0):  # (first in, last out)
            _mallopt(_M_PERTURB, _END_OF_CHUNK ^ 0xFF if step > 0 else _PERTURB)


@contextlib.contextmanager
def filled():
    """What glibc's malloc hands out meanwhile, in any thread, holds END_OF_CHUNK
    bytes (but small blocks from its per-thread caches, and calloc's zeros)."""
    counted = False
    try:
        _fill(1)
        counted = True
        yield
    finally:
        if counted:
            _fill(-1)


def error_text(code):
    """OTF2's name for `code` and the library's last message."""
    name = (Error_GetName(code) or b"?").decode()
    detail = errors[0] if errors else (Error_GetDescription(code) or b"").decode()
    errors.clear()
    return f"{name}: {detail}" if detail else name


# -- the callbacks ---------------------------------------------------------------------
# Every local callback starts with (location, time, event position, userData,
# attributeList); userData is the location's buffer. They are written in LLVM IR and
# compiled together (about 0.2 s, less than loading numba's cached cfuncs).
ATTR_HEADER, ATTR_RECORD = 4, 4
COUNTERS = 128  # the buffer's header: count, capacity, overflow flag, -, then a counter
#                 per record kind not drawn (ALL_KINDS's order)
HEADER = 4 + COUNTERS

#: kind -> (record, its own arguments (LLVM types), fields a b c d: the argument
#: index, (i, j) for argument i | argument j << 32, a constant as a string, or None
#: for 0).
DRAWN = {
    "Enter": (ENTER, ["i32"], [0]),
    "Leave": (LEAVE, ["i32"], [0]),
    "MpiSend": (SEND, ["i32", "i32", "i32", "i64"], [(0, 1), 2, 3]),
    "MpiIsend": (ISEND, ["i32", "i32", "i32", "i64", "i64"], [(0, 1), 2, 3, 4]),
    "MpiIsendComplete": (ISEND_COMPLETE, ["i64"], [None, None, None, 0]),
    "MpiIrecvRequest": (IRECV_REQUEST, ["i64"], [None, None, None, 0]),
    "MpiRecv": (RECV, ["i32", "i32", "i32", "i64"], [(0, 1), 2, 3]),
    "MpiIrecv": (IRECV, ["i32", "i32", "i32", "i64", "i64"], [(0, 1), 2, 3, 4]),
    "MpiCollectiveBegin": (COLL_BEGIN, [], []),
    "MpiCollectiveEnd": (COLL_END, ["i8", "i32", "i32", "i64", "i64"], [(1, 0), 2, 3, 4]),
    "OmpFork": (FORK, ["i32"], [0]),
    "ThreadFork": (FORK, ["i8", "i32"], [1, 0]),
    "OmpJoin": (JOIN, [], []),
    "ThreadJoin": (JOIN, ["i8"], [None, 0]),
    "ThreadTeamBegin": (TEAM_BEGIN, ["i32"], [0]),
    "ThreadTeamEnd": (TEAM_END, ["i32"], [0]),
    "RmaPut": (RMA_PUT, ["i32", "i32", "i64", "i64"], [(0, 1), 2, 3]),
    "RmaGet": (RMA_GET, ["i32", "i32", "i64", "i64"], [(0, 1), 2, 3]),
    "RmaOpCompleteBlocking": (RMA_COMPLETE, ["i32", "i64"], [0, None, 1]),
    "RmaOpCompleteNonBlocking": (RMA_COMPLETE, ["i32", "i64"], [0, None, 1]),
    "RmaOpCompleteRemote": (RMA_COMPLETE, ["i32", "i64"], [0, None, 1]),
    "IoOperationBegin": (IO_BEGIN, ["i32", "i8", "i32", "i64", "i64"], [(0, 1), 3, 4, 2]),
    "IoOperationComplete": (IO_END, ["i32", "i64", "i64"], [0, 1, 2]),
    "OmpTaskCreate": (TASK_CREATE, ["i64"], [0, "-1"]),
    "OmpTaskSwitch": (TASK_SWITCH, ["i64"], [0, "-1"]),
    "OmpTaskComplete": (TASK_COMPLETE, ["i64"], [0, "-1"]),
    "ThreadTaskCreate": (TASK_CREATE, ["i32", "i32", "i32"], [(2, 1), 0]),
    "ThreadTaskSwitch": (TASK_SWITCH, ["i32", "i32", "i32"], [(2, 1), 0]),
    "ThreadTaskComplete": (TASK_COMPLETE, ["i32", "i32", "i32"], [(2, 1), 0]),
    "CallingContextSample": (SAMPLE, ["i32", "i32", "i32"], [0, 1]),
}

#: Every event record kind of OTF2 3.x (its callback setters), drawn or not.
ALL_KINDS = [k for k in """
    BufferFlush CallingContextEnter CallingContextLeave CallingContextSample CommCreate
    CommDestroy Enter IoAcquireLock IoChangeStatusFlags IoCreateHandle IoDeleteFile
    IoDestroyHandle IoDuplicateHandle IoOperationBegin IoOperationCancelled IoOperationComplete
    IoOperationIssued IoOperationTest IoReleaseLock IoSeek IoTryLock Leave MeasurementOnOff
    Metric MpiCollectiveBegin MpiCollectiveEnd MpiImrecv MpiImrecvRequest MpiIrecv
    MpiIrecvRequest MpiIsend MpiIsendComplete MpiMrecv MpiProbe MpiRecv MpiRequestCancelled
    MpiRequestTest MpiSend NonBlockingCollectiveComplete NonBlockingCollectiveRequest
    OmpAcquireLock OmpFork OmpJoin OmpReleaseLock OmpTaskComplete OmpTaskCreate OmpTaskSwitch
    ParameterInt ParameterString ParameterUnsignedInt ProgramBegin ProgramEnd RmaAcquireLock
    RmaAtomic RmaCollectiveBegin RmaCollectiveEnd RmaGet RmaGroupSync RmaOpCompleteBlocking
    RmaOpCompleteNonBlocking RmaOpCompleteRemote RmaOpTest RmaPut RmaReleaseLock RmaRequestLock
    RmaSync RmaTryLock RmaWaitChange RmaWinCreate RmaWinDestroy ThreadAcquireLock ThreadBegin
    ThreadCreate ThreadEnd ThreadFork ThreadJoin ThreadReleaseLock ThreadTaskComplete
    ThreadTaskCreate ThreadTaskSwitch ThreadTeamBegin ThreadTeamEnd ThreadWait Unknown
    """.split() if hasattr(_lib, f"OTF2_EvtReaderCallbacks_Set{k}Callback")]
assert len(ALL_KINDS) <= COUNTERS

_HEAD = "i64 %loc, i64 %time, i64 %pos, i64* %buf, i8* %attrs"
_APPEND = """
define internal i32 @append(i64* %buf, i64 %kind, i64 %time, i64 %a, i64 %b, i64 %c,
                            i64 %d) alwaysinline {
  %n = load i64, i64* %buf
  %capp = getelementptr i64, i64* %buf, i64 1
  %cap = load i64, i64* %capp
  %full = icmp sge i64 %n, %cap
  br i1 %full, label %over, label %ok
over:
  %flag = getelementptr i64, i64* %buf, i64 2
  store i64 1, i64* %flag
  ret i32 1
ok:
  %r0 = mul i64 %n, 6
  %r = add i64 %r0, HEADER
  %p = getelementptr i64, i64* %buf, i64 %r
  store i64 %kind, i64* %p
  %p1 = getelementptr i64, i64* %p, i64 1
  store i64 %time, i64* %p1
  %p2 = getelementptr i64, i64* %p, i64 2
  store i64 %a, i64* %p2
  %p3 = getelementptr i64, i64* %p, i64 3
  store i64 %b, i64* %p3
  %p4 = getelementptr i64, i64* %p, i64 4
  store i64 %c, i64* %p4
  %p5 = getelementptr i64, i64* %p, i64 5
  store i64 %d, i64* %p5
  %n1 = add i64 %n, 1
  store i64 %n1, i64* %buf
  ret i32 0
}

declare i32 @OTF2_AttributeList_GetNumberOfElements(i8*)
declare i32 @OTF2_AttributeList_GetAttributeByIndex(i8*, i32, i32*, i8*, i64*)

define internal i32 @attributes(i64* %buf, i8* %list) alwaysinline {
entry:
  %ref = alloca i32
  %type = alloca i8
  %value = alloca i64
  %areap = getelementptr i64, i64* %buf, i64 3
  %areai = load i64, i64* %areap
  %noarea = icmp eq i64 %areai, 0
  %nolist = icmp eq i8* %list, null
  %skip = or i1 %noarea, %nolist
  br i1 %skip, label %done, label %count
count:
  %area = inttoptr i64 %areai to i64*
  %n32 = call i32 @OTF2_AttributeList_GetNumberOfElements(i8* %list)
  %n = zext i32 %n32 to i64
  %drawn = load i64, i64* %buf
  %owner = sub i64 %drawn, 1
  %capp = getelementptr i64, i64* %area, i64 1
  %cap = load i64, i64* %capp
  br label %loop
loop:
  %i = phi i64 [0, %count], [%i1, %ok]
  %more = icmp ult i64 %i, %n
  br i1 %more, label %body, label %done
body:
  store i64 0, i64* %value
  %i32 = trunc i64 %i to i32
  %err = call i32 @OTF2_AttributeList_GetAttributeByIndex(i8* %list, i32 %i32, i32* %ref,
                                                          i8* %type, i64* %value)
  %m = load i64, i64* %area
  %full = icmp sge i64 %m, %cap
  br i1 %full, label %over, label %ok
over:
  %flag = getelementptr i64, i64* %area, i64 2
  store i64 1, i64* %flag
  ret i32 1
ok:
  %r0 = mul i64 %m, ATTR_RECORD
  %r = add i64 %r0, ATTR_HEADER
  %p = getelementptr i64, i64* %area, i64 %r
  store i64 %owner, i64* %p
  %rv = load i32, i32* %ref
  %rw = zext i32 %rv to i64
  %p1 = getelementptr i64, i64* %p, i64 1
  store i64 %rw, i64* %p1
  %tv = load i8, i8* %type
  %tw = zext i8 %tv to i64
  %p2 = getelementptr i64, i64* %p, i64 2
  store i64 %tw, i64* %p2
  %vv = load i64, i64* %value
  %p3 = getelementptr i64, i64* %p, i64 3
  store i64 %vv, i64* %p3
  %m1 = add i64 %m, 1
  store i64 %m1, i64* %area
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret i32 0
}

define i32 @Metric(HEAD, i32 %metric, i8 %count, i8* %types, i64* %values) {
entry:
  %m = zext i32 %metric to i64
  %cnt = zext i8 %count to i64
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %next]
  %more = icmp ult i64 %i, %cnt
  br i1 %more, label %body, label %done
body:
  %vp = getelementptr i64, i64* %values, i64 %i
  %v = load i64, i64* %vp
  %tp = getelementptr i8, i8* %types, i64 %i
  %t8 = load i8, i8* %tp
  %t = zext i8 %t8 to i64
  %code = call i32 @append(i64* %buf, i64 METRIC, i64 %time, i64 %m, i64 %i, i64 %v, i64 %t)
  %bad = icmp ne i32 %code, 0
  br i1 %bad, label %done, label %next
next:
  %i1 = add i64 %i, 1
  br label %loop
done:
  %r = phi i32 [0, %loop], [%code, %body]
  ret i32 %r
}
""".replace("ATTR_HEADER", str(ATTR_HEADER)).replace("ATTR_RECORD", str(ATTR_RECORD)) \
    .replace("HEADER", str(HEADER)).replace("HEAD", _HEAD).replace("METRIC", str(METRIC))


def _drawn_ir(kind, record, args, fields):
    """A callback appending one record, its fields made from its arguments, then its
    attributes."""
    params = "".join(f", {t} %x{i}" for i, t in enumerate(args))
    body = []

    def wide(i):  # argument i as an i64
        if args[i] == "i64":
            return f"%x{i}"
        body.append(f"%w{i} = zext {args[i]} %x{i} to i64")
        return f"%w{i}"
    names = []
    for f, spec in enumerate((fields + [None] * 4)[:4]):
        if spec is None:
            names.append("0")
        elif isinstance(spec, str):
            names.append(spec)
        elif isinstance(spec, int):
            names.append(wide(spec))
        else:
            lo, hi = wide(spec[0]), wide(spec[1])
            body += [f"%f{f}hi = shl i64 {hi}, 32", f"%f{f} = or i64 {lo}, %f{f}hi"]
            names.append(f"%f{f}")
    call = ", ".join(f"i64 {n}" for n in names)
    return (f"define i32 @{kind}({_HEAD}{params}) {{\n  " + "\n  ".join(body) +
            f"\n  %r = call i32 @append(i64* %buf, i64 {record}, i64 %time, {call})\n"
            "  %full = icmp ne i32 %r, 0\n  br i1 %full, label %out, label %attr\n"
            "out:\n  ret i32 %r\n"
            "attr:\n  %a = call i32 @attributes(i64* %buf, i8* %attrs)\n  ret i32 %a\n}\n")


def _counter_ir(kind, k):
    """A callback counting the records of a kind not drawn (any arguments after the
    common five: the C calling convention lets it ignore them)."""
    return (f"define i32 @{kind}({_HEAD}) {{\n  %p = getelementptr i64, i64* %buf, i64 {4 + k}\n"
            "  %v = load i64, i64* %p\n  %v1 = add i64 %v, 1\n  store i64 %v1, i64* %p\n"
            "  ret i32 0\n}\n")


def _compile():
    """{kind: address} of every callback, compiled once per process; the machine code
    is kept in the user cache folder (the compile took 0.15 s of an archive's read)."""
    import llvmlite.binding as llvm
    for name in ("OTF2_AttributeList_GetNumberOfElements",
                 "OTF2_AttributeList_GetAttributeByIndex"):
        llvm.add_symbol(name, ctypes.cast(getattr(_lib, name), ctypes.c_void_p).value)
    ir = "\n".join([_APPEND] + [_drawn_ir(k, *DRAWN[k]) if k in DRAWN else _counter_ir(k, i)
                                for i, k in enumerate(ALL_KINDS) if k != "Metric"])
    module = llvm.parse_assembly(ir)
    module.verify()
    engine = llvm.create_mcjit_compiler(module, machinecode.machine())
    path = machinecode.cache_path("otf2", "\n".join([ir, "opt=2", machinecode.host()]))
    engine.set_object_cache(lambda _, code: machinecode.keep(path, code),
                            lambda _: machinecode.kept(path))
    engine.finalize_object()
    return engine, {k: engine.get_function_address(k) for k in ALL_KINDS}


_engine = _addresses = None


class Callbacks:
    """An OTF2_EvtReaderCallbacks whose callbacks append the drawn records to the
    location's buffer and count the others in its header."""

    def __init__(self):
        global _engine, _addresses
        with llvm_lock():  # one compilation, out of numba's way (LLVM's state)
            if _addresses is None:
                _engine, _addresses = _compile()
        self.handle = EvtReaderCallbacks_New()
        for kind in ALL_KINDS:
            setter = getattr(_lib, f"OTF2_EvtReaderCallbacks_Set{kind}Callback")
            setter.restype, setter.argtypes = ctypes.c_int, [_p, _p]
            setter(self.handle, ctypes.c_void_p(_addresses[kind]))

    def close(self):
        if self.handle:
            EvtReaderCallbacks_Delete(self.handle)
            self.handle = None


def new_buffer(capacity, attributes=0):
    """A buffer for `capacity` records and, where `attributes` > 0, an attribute area
    for that many attributes."""
    records_end = HEADER + RECORD * capacity
    size = records_end + (ATTR_HEADER + ATTR_RECORD * attributes if attributes else 0)
    # (zeros mapped apart: taken from the system as they are written, whatever malloc
    # does meanwhile: filled, it would write the whole capacity asked for)
    try:
        buf = np.frombuffer(mmap.mmap(-1, 8 * size), np.int64)
    except OSError as e:
        if e.errno == errno.ENOMEM:
            raise MemoryError(f"{8 * size} bytes for a location's records") from None
        raise
    buf[1] = capacity
    if attributes:
        buf[records_end + 1] = attributes
        buf[3] = buf.ctypes.data + 8 * records_end
    return buf


def _area(buf):
    return buf[HEADER + RECORD * int(buf[1]):]


def attributes(buf):
    """The (n, ATTR_RECORD) attributes a buffer holds: record index, attribute
    reference, OTF2_Type, value bits."""
    area = _area(buf)
    if not len(area):
        return np.zeros((0, ATTR_RECORD), np.int64)
    return area[ATTR_HEADER:ATTR_HEADER + ATTR_RECORD * int(area[0])].reshape(-1, ATTR_RECORD)


def overflowed(buf):
    """Whether the records or the attributes did not fit the buffer."""
    area = _area(buf)
    return bool(buf[2] or (len(area) and area[2]))


def records(buf):
    """The (n, RECORD) records a buffer holds."""
    return buf[HEADER:HEADER + RECORD * int(buf[0])].reshape(-1, RECORD)


def counts(buf):
    """{kind: records counted} of the kinds not drawn, in a buffer."""
    return {k: int(buf[4 + i]) for i, k in enumerate(ALL_KINDS) if k not in DRAWN and buf[4 + i]}
