//! Properties animated by a stack's layers, combined as ufbx's `ufbxi_evaluate_props`
//! does.

use super::curve::{AnimValue, Curve};
use super::rotation::{euler_to_quat, mul_quat, quat_to_euler, slerp, IDENTITY_Q};
use super::{own_prop, V3};
/// A layer's weight: fixed, or animated (in percent, on the layer element).
pub(crate) enum Weight<'a> {
    Fixed(f64),
    Animated(Box<AnimValue<'a>>),
}

/// One layer's animation of one property.
pub(crate) struct LayerAnim<'a> {
    /// The layer's index in the stack (layer 0 replaces, the others combine).
    index: usize,
    additive: bool,
    blended: bool,
    compose_rotation: bool,
    compose_scale: bool,
    weight: Weight<'a>,
    value: AnimValue<'a>,
}

impl LayerAnim<'_> {
    pub(crate) fn weight(&mut self, time: f64) -> f64 {
        match &mut self.weight {
            Weight::Fixed(w) => *w,
            Weight::Animated(v) => {
                // The curves' first component, as `ufbx_evaluate_anim_value_real`.
                let w = v.eval(time)[0] / 100.0;
                let w = if w < 0.0 { 0.0 } else { w };
                if w > f64::from(0.99999f32) {
                    1.0
                } else {
                    w
                }
            }
        }
    }
}

/// Which combination rules apply to a property.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum PropKind {
    Rotation,
    Scale,
    Other,
}

/// One property of one element animated by a stack's layers.
pub(crate) struct PropAnim<'a> {
    /// The static value the first layer replaces (or later layers combine with).
    base: V3,
    kind: PropKind,
    order: ufbx::RotationOrder,
    layers: Vec<LayerAnim<'a>>,
}

impl<'a> PropAnim<'a> {
    /// The layers of `anim` that animate property `name` of `element`; `None` when
    /// none does. `Err` when ufbx's own evaluation must be used (a connected property).
    pub(crate) fn new(
        anim: &'a ufbx::Anim,
        element: &'a ufbx::Element,
        name: &str,
        base: V3,
        order: ufbx::RotationOrder,
        ktime_second: f64,
    ) -> Result<Option<PropAnim<'a>>, ()> {
        // Only the element's own properties can be animated (ufbx evaluates the
        // element's own entries flagged animated or connected).
        let Some(prop) = own_prop(&element.props, name) else {
            return Ok(None);
        };
        if prop.flags.has_any(ufbx::PropFlags::CONNECTED) && !anim.ignore_connections {
            return Err(());
        }
        if !prop.flags.has_any(ufbx::PropFlags::ANIMATED) {
            return Ok(None);
        }
        let kind = match name {
            "Lcl Rotation" => PropKind::Rotation,
            "Lcl Scaling" => PropKind::Scale,
            _ => PropKind::Other,
        };
        let mut layers = Vec::new();
        for (index, layer) in anim.layers.iter().enumerate() {
            let Some(ap) = ufbx::find_anim_prop(layer, element, name) else {
                continue;
            };
            let mut weight = Weight::Fixed(
                anim.override_layer_weights
                    .get(index)
                    .copied()
                    .unwrap_or(layer.weight),
            );
            if layer.weight_is_animated && layer.blended {
                if let Some(wp) = ufbx::find_anim_props(layer, &layer.element).first() {
                    weight =
                        Weight::Animated(Box::new(AnimValue::of(&wp.anim_value, ktime_second)));
                }
            }
            layers.push(LayerAnim {
                index,
                additive: layer.additive,
                blended: layer.blended,
                compose_rotation: layer.compose_rotation,
                compose_scale: layer.compose_scale,
                weight,
                value: AnimValue::of(&ap.anim_value, ktime_second),
            });
        }
        if layers.is_empty() {
            return Ok(None);
        }
        Ok(Some(PropAnim {
            base,
            kind,
            order,
            layers,
        }))
    }

    pub(crate) fn curves(&self) -> impl Iterator<Item = &Curve<'a>> {
        self.layers.iter().flat_map(|l| {
            let w = match &l.weight {
                Weight::Animated(v) => Some(v.curves()),
                Weight::Fixed(_) => None,
            };
            l.value.curves().chain(w.into_iter().flatten())
        })
    }

    pub(crate) fn is_well_formed(&self) -> bool {
        self.curves().all(Curve::is_well_formed)
    }

    pub(crate) fn is_constant(&self) -> bool {
        self.curves().all(Curve::is_constant)
    }

    /// The value at `time` (`ufbxi_evaluate_props` for this property).
    pub(crate) fn eval(&mut self, time: f64) -> V3 {
        let mut result = self.base;
        let (kind, order) = (self.kind, self.order);
        for layer in &mut self.layers {
            let weight = layer.weight(time);
            let v = layer.value.eval(time);
            if layer.index == 0 {
                result = v;
            } else {
                combine(layer, weight, kind, order, &mut result, v);
            }
        }
        result
    }
}

/// `|v|^e` with the sign of `v`, and the end cases of `ufbxi_pow_abs`.
pub(crate) fn pow_abs(v: f64, e: f64) -> f64 {
    if e <= 0.0 {
        return 1.0;
    }
    if e >= 1.0 {
        return v;
    }
    let sign = if v < 0.0 { -1.0 } else { 1.0 };
    sign * libm::pow(v * sign, e)
}

/// Combines a later layer's value into `result` (`ufbxi_combine_anim_layer`).
pub(crate) fn combine(
    layer: &LayerAnim<'_>,
    weight: f64,
    kind: PropKind,
    order: ufbx::RotationOrder,
    result: &mut V3,
    value: V3,
) {
    if layer.additive {
        if layer.compose_scale && kind == PropKind::Scale {
            for k in 0..3 {
                result[k] *= pow_abs(value[k], weight);
            }
        } else if layer.compose_rotation && kind == PropKind::Rotation {
            let a = euler_to_quat(*result, order);
            let b = slerp(IDENTITY_Q, euler_to_quat(value, order), weight);
            *result = quat_to_euler(mul_quat(a, b), order);
        } else {
            for k in 0..3 {
                result[k] += value[k] * weight;
            }
        }
    } else if layer.blended {
        let res_weight = 1.0 - weight;
        if layer.compose_scale && kind == PropKind::Scale {
            for k in 0..3 {
                result[k] = pow_abs(result[k], res_weight) * pow_abs(value[k], weight);
            }
        } else if layer.compose_rotation && kind == PropKind::Rotation {
            let a = euler_to_quat(*result, order);
            let b = euler_to_quat(value, order);
            *result = quat_to_euler(slerp(a, b, weight), order);
        } else {
            for k in 0..3 {
                result[k] = result[k] * res_weight + value[k] * weight;
            }
        }
    } else {
        *result = value;
    }
}
