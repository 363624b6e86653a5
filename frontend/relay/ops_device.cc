// Relay's device annotations: on_device (a placement constraint) and device_copy (a move to another
// device) both become R.hint_on_device(x, R.device(type, id), scope) — Relax's placement request.
// Why not R.to_vdevice for device_copy: it names a vdevice of the module's global infos, which an
// op conversion cannot declare; RealizeVDevice turns a hint whose input is elsewhere into exactly
// that R.to_vdevice, so the copy is kept. The source device of a copy is implied by its input.
#include "frontend/relay/ops.h"

namespace rlx::relay::ops {

namespace {

struct Device {
  int64_t type = -1;  // DLDeviceType; -1 = unconstrained
  int64_t id = 0;
  std::string scope;
};

// The DLDeviceType a target kind runs on (a VirtualDevice may give only its target); -1 if unknown.
int64_t deviceTypeOfTarget(const std::string& kind) {
  static const std::pair<const char*, int64_t> kinds[] = {{"llvm", 1}, {"c", 1}, {"cuda", 2}, {"nvptx", 2}, {"opencl", 4}, {"vulkan", 7}, {"metal", 8}, {"rocm", 10}, {"webgpu", 15}};
  for (auto& [name, type] : kinds)
    if (kind == name) return type;
  return -1;
}

// A virtual device from `key` (meta[VirtualDevice][i]) or, in older text, the ints `typeKey`
// (device_type / dst_dev_type) and `idKey`.
Device deviceOf(OpCtx& c, const char* key, const char* typeKey, const char* idKey) {
  Device d;
  if (const AttrValue* a = c.attr(key)) {
    if (a->kind != AttrValue::Meta) c.fail(std::string("attribute '") + key + "' must be a meta[VirtualDevice][i] reference");
    const MetaValue* m = c.meta(key);
    if (m->kind != MetaValue::VirtualDevice) c.fail("meta[" + a->s + "][" + std::to_string(a->index) + "] is a " + m->typeKey + ", not a VirtualDevice");
    d.type = m->deviceType;
    if (d.type < 0 && !m->target.empty()) d.type = deviceTypeOfTarget(m->target);
    d.id = m->virtualDeviceId < 0 ? 0 : m->virtualDeviceId;
    d.scope = m->memoryScope;
    return d;
  }
  if (typeKey) d.type = c.i(typeKey, -1);
  if (idKey) d.id = std::max<int64_t>(0, c.i(idKey, 0));
  // Relay's kInvalidDeviceType (0) also means "no constraint".
  if (d.type == 0) d.type = -1;
  return d;
}

RExpr hint(OpCtx& c, const Device& d) {
  // Unconstrained, or not a tensor (a tuple or function placed as a whole): nothing for Relax to
  // hold on to, the value stays as it is.
  const rlx::Expr& x = c.arg(0);
  bool isTensor = x && x->sinfo && x->sinfo.as<TensorSInfo>();
  if (d.type < 0 || !isTensor) return x;
  PyValue dev;
  dev.kind = PyValue::Tuple;
  dev.items = {i(d.type), i(d.id)};
  return c.call("hint_on_device", {ex(x), dev, s(d.scope.empty() ? "global" : d.scope)});
}

}  // namespace

// on_device(x, virtual_device, constrain_result, constrain_body): which side of the annotation is
// constrained does not matter to Relax, where the hint places the value itself.
RExpr on_device(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"virtual_device", "constrain_result", "constrain_body", "device_type", "virtual_device_id", "is_fixed"});
  (void)c.b("constrain_result", false);
  (void)c.b("constrain_body", true);
  (void)c.b("is_fixed", false);
  return hint(c, deviceOf(c, "virtual_device", "device_type", "virtual_device_id"));
}

// device_copy(x, src_virtual_device, dst_virtual_device): x placed on the destination device.
RExpr device_copy(OpCtx& c) {
  c.expectArgs(1, 1);
  c.allowAttrs({"src_virtual_device", "dst_virtual_device", "src_dev_type", "dst_dev_type"});
  (void)deviceOf(c, "src_virtual_device", "src_dev_type", nullptr);  // checked, implied by x
  Device dst = deviceOf(c, "dst_virtual_device", "dst_dev_type", nullptr);
  if (dst.type < 0) c.fail("the destination device is unconstrained");
  return hint(c, dst);
}

}  // namespace rlx::relay::ops
