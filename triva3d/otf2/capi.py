"""The OTF2 C reader driven through ctypes, with numba `cfunc` callbacks that append
each event of one location to a flat int64 record buffer (no Python per event).

The `otf2` wheel's extension module exports the whole OTF2 C API; we load it with
ctypes. A location's buffer is HEADER int64 (count, capacity, overflow flag) then
RECORD int64 per event: kind, timestamp and four fields (see KINDS). A callback
that finds the buffer full sets the flag and interrupts the reader, so a location
that holds more events than its definition says is reported, never overrun.
Record kinds we do not draw are counted per kind by small Python callbacks.
"""
import ctypes

import _otf2
import numpy as np
from numba import cfunc, njit, types

HEADER, RECORD = 4, 6
#: Record kinds and their fields (a, b, c, d):
ENTER, LEAVE = 1, 2                      # region
SEND, ISEND = 3, 4                       # peer | comm << 32, tag, bytes, request
ISEND_COMPLETE, IRECV_REQUEST = 5, 6     # -, -, -, request
RECV, IRECV = 7, 8                       # as SEND / ISEND, the peer being the sender
COLL_BEGIN, COLL_END = 9, 10             # comm | op << 32, root, bytes sent, received
METRIC = 11                              # metric, member index, value bits, value type

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


def error_text(code):
    """OTF2's name for `code` and the library's last message."""
    name = (Error_GetName(code) or b"?").decode()
    detail = errors[0] if errors else (Error_GetDescription(code) or b"").decode()
    errors.clear()
    return f"{name}: {detail}" if detail else name


# -- the fast callbacks ------------------------------------------------------------
_I32, _U8, _U32, _U64 = types.int32, types.uint8, types.uint32, types.uint64
_BUF, _VOID = types.CPointer(types.int64), types.voidptr
_HEAD = (_U64, _U64, _U64, _BUF, _VOID)  # location, time, event position, userData, attributes


@njit(inline="always")
def _append(buf, kind, time, a, b, c, d):
    n = buf[0]
    if n >= buf[1]:
        buf[2] = 1
        return INTERRUPT
    r = HEADER + n * RECORD
    buf[r] = kind
    buf[r + 1] = time
    buf[r + 2] = a
    buf[r + 3] = b
    buf[r + 4] = c
    buf[r + 5] = d
    buf[0] = n + 1
    return OK


@cfunc(_I32(*_HEAD, _U32), cache=True)
def _enter(loc, time, pos, buf, attrs, region):
    return _append(buf, ENTER, time, region, 0, 0, 0)


@cfunc(_I32(*_HEAD, _U32), cache=True)
def _leave(loc, time, pos, buf, attrs, region):
    return _append(buf, LEAVE, time, region, 0, 0, 0)


@cfunc(_I32(*_HEAD, _U32, _U32, _U32, _U64), cache=True)
def _send(loc, time, pos, buf, attrs, peer, comm, tag, size):
    return _append(buf, SEND, time, peer | (types.int64(comm) << 32), tag, size, 0)


@cfunc(_I32(*_HEAD, _U32, _U32, _U32, _U64, _U64), cache=True)
def _isend(loc, time, pos, buf, attrs, peer, comm, tag, size, request):
    return _append(buf, ISEND, time, peer | (types.int64(comm) << 32), tag, size, request)


@cfunc(_I32(*_HEAD, _U64), cache=True)
def _isend_complete(loc, time, pos, buf, attrs, request):
    return _append(buf, ISEND_COMPLETE, time, 0, 0, 0, request)


@cfunc(_I32(*_HEAD, _U64), cache=True)
def _irecv_request(loc, time, pos, buf, attrs, request):
    return _append(buf, IRECV_REQUEST, time, 0, 0, 0, request)


@cfunc(_I32(*_HEAD, _U32, _U32, _U32, _U64), cache=True)
def _recv(loc, time, pos, buf, attrs, peer, comm, tag, size):
    return _append(buf, RECV, time, peer | (types.int64(comm) << 32), tag, size, 0)


@cfunc(_I32(*_HEAD, _U32, _U32, _U32, _U64, _U64), cache=True)
def _irecv(loc, time, pos, buf, attrs, peer, comm, tag, size, request):
    return _append(buf, IRECV, time, peer | (types.int64(comm) << 32), tag, size, request)


@cfunc(_I32(*_HEAD), cache=True)
def _coll_begin(loc, time, pos, buf, attrs):
    return _append(buf, COLL_BEGIN, time, 0, 0, 0, 0)


@cfunc(_I32(*_HEAD, _U8, _U32, _U32, _U64, _U64), cache=True)
def _coll_end(loc, time, pos, buf, attrs, op, comm, root, sent, received):
    return _append(buf, COLL_END, time, comm | (types.int64(op) << 32), root, sent, received)


@cfunc(_I32(*_HEAD, _U32, _U8, types.CPointer(_U8), types.CPointer(types.int64)), cache=True)
def _metric(loc, time, pos, buf, attrs, metric, count, type_ids, values):
    for i in range(count):
        if _append(buf, METRIC, time, metric, i, values[i], type_ids[i]) != OK:
            return INTERRUPT
    return OK


FAST = {"Enter": _enter, "Leave": _leave, "MpiSend": _send, "MpiIsend": _isend,
        "MpiIsendComplete": _isend_complete, "MpiIrecvRequest": _irecv_request,
        "MpiRecv": _recv, "MpiIrecv": _irecv, "MpiCollectiveBegin": _coll_begin,
        "MpiCollectiveEnd": _coll_end, "Metric": _metric}

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

# Every local callback starts with (location, time, event position, userData,
# attributeList); the C calling convention lets a callback that declares only those
# be called with more.
_COUNT_PROTO = ctypes.CFUNCTYPE(ctypes.c_int, _u64, _u64, _u64, _p, _p)


class Callbacks:
    """An OTF2_EvtReaderCallbacks with the fast callbacks and a counter for every
    other record kind (`counts`)."""

    def __init__(self):
        self.handle = EvtReaderCallbacks_New()
        self.counts = {k: 0 for k in ALL_KINDS if k not in FAST}
        self._keep = []
        for kind in ALL_KINDS:
            setter = getattr(_lib, f"OTF2_EvtReaderCallbacks_Set{kind}Callback")
            setter.restype, setter.argtypes = ctypes.c_int, [_p, _p]
            if kind in FAST:
                setter(self.handle, ctypes.c_void_p(FAST[kind].address))
            else:
                fn = _COUNT_PROTO(self._counter(kind))
                self._keep.append(fn)
                setter(self.handle, ctypes.cast(fn, _p))

    def _counter(self, kind):
        def count(location, time, position, user, attrs):
            self.counts[kind] += 1
            return OK
        return count

    def close(self):
        if self.handle:
            EvtReaderCallbacks_Delete(self.handle)
            self.handle = None


def new_buffer(capacity):
    buf = np.zeros(HEADER + RECORD * capacity, np.int64)
    buf[1] = capacity
    return buf


def records(buf):
    """The (n, RECORD) records a buffer holds."""
    return buf[HEADER:HEADER + RECORD * int(buf[0])].reshape(-1, RECORD)
