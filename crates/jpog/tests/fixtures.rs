//! Fixtures built in code: each parses to its hand-set values, writes back byte for byte,
//! and edits survive a write and a read.

mod common;

use jpog::ops::{self, PackMaterial, PackTexture, ReplaceOptions};
use jpog::png_io::{decode_png, encode_png};
use jpog::texture::{CodecOptions, DdsOptions, Dxt, Order4444, Order8888};
use jpog::tmd::NodeLayout;
use jpog::{Error, Image, Tkl, Tmd, Tml};

#[test]
fn tml_fixture_reads_hand_values() {
    let bytes = common::tml_fixture();
    let tml = Tml::read(&bytes).unwrap();
    assert_eq!(tml.textures.len(), 5);
    for (i, (t, (format, w, h, data))) in
        tml.textures.iter().zip(common::tml_textures()).enumerate()
    {
        assert_eq!(t.header.id, 4 - i as u32);
        assert_eq!(
            (t.header.format, t.header.width, t.header.height),
            (format, w, h)
        );
        assert_eq!(t.header.unknown, -3);
        assert_eq!(t.header.unknown2, 7);
        assert_eq!(t.data, data);
    }
    let d = CodecOptions::default();
    // format 0: bytes R,G,B,A as stored; A,R,G,B as the option
    assert_eq!(
        tml.decode_texture(0, d).unwrap().data(),
        vec![10, 20, 30, 40, 50, 60, 70, 80]
    );
    let argb = CodecOptions {
        order_8888: Order8888::Argb,
        ..d
    };
    assert_eq!(
        tml.decode_texture(0, argb).unwrap().data(),
        vec![20, 30, 40, 10, 60, 70, 80, 50]
    );
    // format 2: 0x801F = R 31, A 1; 0x03E0 = G 31, A 0
    assert_eq!(
        tml.decode_texture(1, d).unwrap().data(),
        vec![255, 0, 0, 255, 0, 255, 0, 0]
    );
    // format 7: 0xF00F = R 15 (bits 0-3), A 15; 0x1234 = R 4, G 3, B 2, A 1 (×17)
    assert_eq!(
        tml.decode_texture(2, d).unwrap().data(),
        vec![255, 0, 0, 255, 68, 51, 34, 17]
    );
    let blow = CodecOptions {
        order_4444: Order4444::BLow,
        ..d
    };
    assert_eq!(
        tml.decode_texture(2, blow).unwrap().data(),
        vec![0, 0, 255, 255, 34, 51, 68, 17]
    );
    // format 6: DXT5 4×4 with three levels, all solid red, opaque
    let img = tml.decode_texture(3, d).unwrap();
    assert_eq!((img.width(), img.height()), (4, 4));
    assert!(img.data().chunks(4).all(|p| p == [255, 0, 0, 255]));
    let dds = jpog::dds::Dds::parse(&tml.textures[3].data, "t").unwrap();
    assert_eq!(
        dds.levels
            .iter()
            .map(|l| (l.width, l.height))
            .collect::<Vec<_>>(),
        vec![(4, 4), (2, 2), (1, 1)]
    );
    // format 9: unsupported, bytes kept
    assert!(matches!(
        tml.decode_texture(4, d),
        Err(Error::UnsupportedFormat { format: 9, .. })
    ));
    let names: Vec<String> = tml.materials.iter().map(|m| m.name()).collect();
    assert_eq!(names, ["alpha", "beta1", "Beta_2", "Zed"]);
    assert_eq!(tml.materials[2].texture_ids, vec![2, 1]);
    assert_eq!(&tml.materials[2].name_field[10..14], b"junk");
    assert_eq!(tml.materials[0].shader(), 0x3000);
    tml.validate().unwrap();
    let open = tml.open_fields();
    assert!(open
        .iter()
        .any(|f| f.field == "name bytes after NUL" && f.record == "material 2"));
    assert!(open
        .iter()
        .any(|f| f.field == "format" && f.record == "texture 4"));
}

fn tmd_direct() -> Tmd {
    Tmd::read(&common::tmd_direct()).unwrap()
}

#[test]
fn tmd_direct_reads_hand_values() {
    let tmd = tmd_direct();
    assert_eq!(tmd.node_layout, NodeLayout::Direct);
    assert_eq!(tmd.header.tkl_name(), "TESTKL");
    assert_eq!(&tmd.header.tkl_name[8..11], b"IX2");
    assert_eq!(
        (tmd.header.u1, tmd.header.u2, tmd.header.u3, tmd.header.u4),
        (5, 9, 1, 2)
    );
    let skel = tmd.skeleton().unwrap();
    for (s, (name, parent, flag, t)) in skel.iter().zip(common::tmd_nodes()) {
        assert_eq!(s.name, name);
        assert_eq!(s.parent, usize::try_from(parent).ok());
        assert_eq!(s.flag, flag);
        assert_eq!(s.rest_translation, t);
        assert_eq!(&s.bind[3][..3], &t);
        assert_eq!(s.inverse_bind[3][..3], [-t[0], -t[1], -t[2]]);
    }
    assert_eq!(tmd.animations.len(), 2);
    for (a, (name, overlay, unknown, dur, chans)) in tmd.animations.iter().zip(common::tmd_anims())
    {
        assert_eq!(a.name(), name);
        assert_eq!(
            (a.overlay, a.unknown, a.used_node_count, a.duration),
            (overlay, unknown, 3, dur)
        );
        assert_eq!(a.channels.len(), 3);
        for (c, (flags, keys)) in a.channels.iter().zip(chans) {
            assert_eq!(c.flags, flags);
            let got: Vec<(f32, u16, u16)> = c
                .keys
                .iter()
                .map(|k| (k.time, k.loc_index, k.rot_index))
                .collect();
            assert_eq!(got, keys);
        }
    }
    assert!(tmd.animations[0].is_looping());
    assert!(!tmd.animations[1].is_looping());
    let lay = tmd.layout.as_ref().unwrap();
    // the 4-byte gap after the two-entry animation table is found and reported
    let gap_at = lay.anim_table_offset.unwrap() + 8;
    assert_eq!(lay.gaps, vec![(gap_at, gap_at + 4)]);
    assert!(tmd
        .open_fields()
        .iter()
        .any(|f| f.field == "unclaimed bytes" && f.offset == gap_at as u64));
    assert_eq!(tmd.trailing, b"TRAIL");
    let open: serde_json::Value =
        serde_json::from_str(&ops::open_fields_json(&tmd.open_fields())).unwrap();
    assert!(open
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["field"] == "tklName bytes after NUL"));
    let info: serde_json::Value = serde_json::from_str(&ops::tmd_info(&tmd).to_json()).unwrap();
    assert_eq!(info["tkl_name"], "TESTKL");
    assert_eq!(info["nodes"][1]["parent"], 2);
    assert_eq!(info["animations"][0]["keys"], 3);
    assert_eq!(info["lods"][1]["meshes"][0]["stitches"], 1);
    assert_eq!(tmd.mesh.lods.len(), 2);
    assert_eq!(tmd.mesh.lod_distance, 25.0);

    // LOD 0: one mesh, two pieces, skinning through each piece's palette
    let geo = tmd.lod_geometry(0).unwrap();
    assert_eq!(geo.len(), 1);
    let g = &geo[0];
    assert_eq!(g.material, "Skin01");
    assert_eq!(g.triangles, vec![[0, 1, 2], [2, 1, 3], [4, 5, 6]]);
    assert_eq!(g.piece_triangles, vec![2, 1]);
    assert_eq!(g.stitches, 0);
    let expect_nodes: [[Option<u32>; 4]; 7] = [
        [Some(0), None, None, None],
        [Some(0), Some(2), None, None],
        [Some(2), None, None, None],
        [Some(2), None, None, None],
        [Some(1), None, None, None],
        [Some(1), None, None, None],
        [Some(1), Some(1), None, None],
    ];
    for (i, v) in g.vertices.iter().enumerate() {
        assert_eq!(v.nodes, expect_nodes[i], "vertex {i}");
        assert_eq!(v.piece, Some(if i < 4 { 0 } else { 1 }));
        assert_eq!(v.uv_unnegated, [i as f32 * 0.125, 0.5]);
    }
    assert_eq!(
        g.vertices[1].influences(),
        vec![(0, 128.0 / 255.0), (2, 127.0 / 255.0)]
    );
    // LOD 1: strip [0,0,1,2]: a stitch, then (0,1,2) at odd position 1 -> (1,0,2)
    let g1 = &tmd.lod_geometry(1).unwrap()[0];
    assert_eq!(g1.triangles, vec![[1, 0, 2]]);
    assert_eq!(g1.stitches, 1);
    assert!(tmd.lod_geometry(2).is_err());
}

#[test]
fn open_channel_flags_and_trailing_bytes_report_where_the_file_holds_them() {
    let bytes = common::tmd_direct();
    let tmd = Tmd::read(&bytes).unwrap();
    let open = tmd.open_fields();
    let find = |record: &str, field: &str| {
        open.iter()
            .find(|f| f.record == record && f.field == field)
            .unwrap_or_else(|| panic!("{record} {field} in {open:?}"))
            .offset as usize
    };
    // Animation 0's third channel stores flags 3 and no keys (common::tmd_anims).
    let at = find("animation 0 channel 2", "flags (bit 1 and up)");
    assert_ne!(at, 0);
    assert_eq!(&bytes[at..at + 4], &[3, 0, 0, 0], "flags 3, keyCount 0");
    // The file ends in the five bytes "TRAIL" after the mesh block.
    let at = find("end", "trailing bytes");
    assert_eq!(at, bytes.len() - 5);
    assert_eq!(&bytes[at..], b"TRAIL");
}

#[test]
fn tmd_indexed_reads_hand_values() {
    let tmd = Tmd::read(&common::tmd_indexed()).unwrap();
    assert_eq!(
        tmd.node_layout,
        NodeLayout::Indexed {
            node_order: vec![1, 0]
        }
    );
    let lay = tmd.layout.as_ref().unwrap();
    assert_eq!(
        (
            lay.header_size,
            lay.node_order_offset,
            lay.node_array_offset
        ),
        (0x80, Some(0x80), 0x88)
    );
    assert_eq!(tmd.nodes[1].name(), "Gun");
    assert_eq!(tmd.nodes[1].parent, 0);
    assert!(tmd.animations.is_empty());
    let g = &tmd.lod_geometry(0).unwrap()[0];
    assert_eq!(g.triangles, vec![[0, 1, 2]]);
    assert!(g.vertices.iter().all(|v| v.nodes[0] == Some(1)));
    let info = ops::tmd_info(&tmd);
    assert_eq!(info.node_layout, "indexed");
    assert_eq!(info.lods[0].meshes[0].triangles, 1);
    assert!(info.to_json().contains("\"Metal\""));
}

#[test]
fn tkl_fixture_and_resolved_animations() {
    let tkl = Tkl::read(&common::tkl_fixture()).unwrap();
    assert_eq!(tkl.name(), "TESTKL");
    assert_eq!(tkl.locations, common::tkl_locations());
    assert_eq!(tkl.rotations, common::tkl_rotations());
    let tmd = tmd_direct();
    let anims = tmd.resolve_animations(&tkl).unwrap();
    // Walk_lp channel 0 key 1: loc 1 = (1,2,3), rot 1 = (0,0,0.5,0.75)
    let k = anims[0].channels[0].keys[1];
    assert_eq!(
        (k.time, k.translation, k.rotation),
        (1.5, [1.0, 2.0, 3.0], [0.0, 0.0, 0.5, 0.75])
    );
    assert!(anims[0].channels[0].translation_used);
    assert!(!anims[0].channels[1].translation_used);
    // Idle channel 2: loc 0, rot 2
    assert_eq!(anims[1].channels[2].keys[0].rotation, [1.0, 0.0, 0.0, 0.0]);
    // a library too short for the keys is refused
    let mut short = tkl.clone();
    short.rotations.truncate(2);
    assert!(matches!(
        tmd.resolve_animations(&short),
        Err(Error::Reference {
            field: "rotIndex",
            ..
        })
    ));
}

#[test]
fn every_fixture_writes_back_byte_for_byte() {
    for (label, bytes) in common::all() {
        let out = match label {
            "tml" => Tml::read(&bytes).unwrap().write().unwrap(),
            "tkl" => Tkl::read(&bytes).unwrap().write().unwrap(),
            _ => {
                let t = Tmd::read(&bytes).unwrap();
                assert!(!t.is_modified(), "{label}");
                t.write().unwrap()
            }
        };
        assert_eq!(out, bytes, "{label}");
    }
}

/// Compares everything but where things were found.
fn same_model(a: &Tmd, b: &Tmd) {
    assert_eq!(a.header, b.header);
    assert_eq!(a.node_layout, b.node_layout);
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.animations, b.animations);
    assert_eq!(a.mesh, b.mesh);
    assert_eq!(a.trailing, b.trailing);
}

#[test]
fn tmd_edits_survive_write_and_read() {
    for bytes in [common::tmd_direct(), common::tmd_indexed()] {
        let mut tmd = Tmd::read(&bytes).unwrap();
        tmd.nodes[1].set_name("Renamed").unwrap();
        tmd.mesh.lods[0].meshes[0].pieces[0].vertices[0].position = [9.0, 8.0, 7.0];
        if let Some(a) = tmd.animations.first_mut() {
            a.channels[0].keys.push(jpog::tmd::Key {
                time: 3.0,
                loc_index: 2,
                rot_index: 2,
            });
            a.duration = 3.0;
        }
        assert!(tmd.is_modified());
        let out = tmd.write().unwrap();
        assert_ne!(out, bytes);
        let back = Tmd::read(&out).unwrap();
        same_model(&back, &tmd);
        assert_eq!(back.nodes[1].name(), "Renamed");
        // the new layout has no gaps and a consistent size field
        assert!(back.layout.as_ref().unwrap().gaps.is_empty());
        assert_eq!(back.write().unwrap(), out);
    }
}

#[test]
fn tmd_edits_breaking_rules_are_refused() {
    let base = tmd_direct();
    let refused = |t: &Tmd, field: &str| match t.write() {
        Err(Error::Refused { field: f, .. }) => assert_eq!(f, field),
        other => panic!("expected a refusal of {field}, got {other:?}"),
    };
    let mut t = base.clone();
    assert!(t.nodes[0].set_name("ABCDEFGHIJKLMNOP").is_err());
    t.nodes[0].name_length = 16;
    refused(&t, "nameLength");
    let mut t = base.clone();
    t.mesh.lods[0].meshes[0].pieces[1].palette = vec![0; 29];
    refused(&t, "paletteCount");
    let mut t = base.clone();
    t.mesh.lods[0].meshes[0].pieces[1].strip = vec![4; 32767];
    refused(&t, "stripIndexCount");
    let mut t = base.clone();
    t.mesh.lods[0].meshes[0].pieces[1].strip.push(60);
    refused(&t, "strip");
    let mut t = base.clone();
    t.nodes[0].parent = 1; // 0 -> 1 -> 2 -> 0
    assert!(matches!(
        t.write(),
        Err(Error::Reference {
            field: "parent",
            ..
        })
    ));
    let mut t = base.clone();
    t.animations[0].channels.pop();
    refused(&t, "channels");
    let mut t = base.clone();
    // vertex 1's second slot points at palette slot 2 of a two-node palette
    t.mesh.lods[0].meshes[0].pieces[0].vertices[1].bones[1] = 6;
    refused(&t, "bones");
    let mut t = base.clone();
    // piece 1 also draws vertex 0, which piece 0 owns
    t.mesh.lods[0].meshes[0].pieces[1].strip = vec![0, 5, 6];
    refused(&t, "strip");
}

fn tml() -> Tml {
    Tml::read(&common::tml_fixture()).unwrap()
}

#[test]
fn tml_edits_breaking_rules_are_refused() {
    let refused = |t: &Tml, field: &str| match t.write() {
        Err(Error::Refused { field: f, .. }) => assert_eq!(f, field),
        other => panic!("expected a refusal of {field}, got {other:?}"),
    };
    let mut t = tml();
    t.materials.swap(0, 1);
    t.materials[0].name_index = 0;
    t.materials[1].name_index = 1;
    refused(&t, "name");
    let mut t = tml();
    t.materials[3].name_field = [b'z'; 32];
    refused(&t, "name");
    let mut t = tml();
    t.materials[1].texture_ids = vec![0, 1, 2, 3, 4];
    refused(&t, "textureCount");
    let mut t = tml();
    t.textures.swap(0, 1);
    refused(&t, "id");
    let mut t = tml();
    t.textures[1].data.pop();
    refused(&t, "dataSize");
    assert!(jpog::tml::Material::name_field_from(&"x".repeat(32)).is_err());
    assert!(jpog::tml::Material::name_field_from(&"x".repeat(31)).is_ok());
}

#[test]
fn tml_replace_reencodes_in_the_texture_format() {
    let mut t = tml();
    let before = t.write().unwrap();
    // format 2: pick values 5551 represents exactly
    let img = Image::from_rgba8(2, 1, vec![8, 16, 255, 255, 0, 0, 0, 0]).unwrap();
    // slot 1 of "Beta_2" (found case-insensitively) is id 1 = texture 3, the 4×4 DDS:
    // a 2×1 image is refused and nothing changes
    assert!(matches!(
        ops::replace_texture(&mut t, "BETA_2", 1, &img, ReplaceOptions::default()),
        Err(Error::Refused {
            field: "width/height",
            ..
        })
    ));
    assert_eq!(t.write().unwrap(), before);
    assert!(matches!(
        ops::replace_texture(
            &mut t,
            "beta1",
            0,
            &Image::from_rgba8(1, 1, vec![0; 4]).unwrap(),
            ReplaceOptions::default()
        ),
        Err(Error::Refused { .. })
    ));
    let ti = ops::replace_texture(&mut t, "beta1", 0, &img, ReplaceOptions::default()).unwrap();
    let back = Tml::read(&t.write().unwrap()).unwrap();
    assert_eq!(
        back.decode_texture(ti, CodecOptions::default()).unwrap(),
        img
    );
    // the DDS keeps DXT5 and its full chain; resizing needs the option
    let big = Image::from_rgba8(8, 8, [0, 255, 0, 255].repeat(64)).unwrap();
    assert!(ops::replace_texture(&mut t, "Beta_2", 1, &big, ReplaceOptions::default()).is_err());
    let opts = ReplaceOptions {
        allow_resize: true,
        ..Default::default()
    };
    let ti =
        ops::replace_texture_png(&mut t, "Beta_2", 1, &encode_png(&big).unwrap(), opts).unwrap();
    let back = Tml::read(&t.write().unwrap()).unwrap();
    let dds = jpog::dds::Dds::parse(&back.textures[ti].data, "t").unwrap();
    assert_eq!((dds.dxt, dds.levels.len()), (Dxt::Dxt5, 4));
    assert_eq!(
        (
            back.textures[ti].header.width,
            back.textures[ti].header.height
        ),
        (8, 8)
    );
    assert_eq!(
        back.decode_texture(ti, CodecOptions::default()).unwrap(),
        big
    );
    // unsupported formats are refused, not rewritten
    assert!(matches!(
        ops::replace_texture(&mut t, "Zed", 0, &img, opts),
        Err(Error::UnsupportedFormat { format: 9, .. })
    ));
}

#[test]
fn pack_sorts_names_reverses_ids_and_reads_back() {
    let solid = |c: [u8; 4], w, h| Image::from_rgba8(w, h, c.repeat((w * h) as usize)).unwrap();
    let mats = vec![
        PackMaterial {
            name: "zebra".into(),
            flags: 0,
            textures: vec![PackTexture {
                image: solid([255, 0, 0, 255], 2, 2),
                format: 0,
                flags: 0,
                dds: None,
            }],
        },
        PackMaterial {
            name: "Apple".into(),
            flags: 0x1000,
            textures: vec![
                PackTexture {
                    image: solid([0, 255, 0, 255], 4, 4),
                    format: 6,
                    flags: 0,
                    dds: Some(DdsOptions {
                        dxt: Dxt::Dxt3,
                        mipmaps: true,
                    }),
                },
                PackTexture {
                    image: solid([17, 34, 51, 68], 1, 1),
                    format: 7,
                    flags: 2,
                    dds: None,
                },
            ],
        },
        PackMaterial {
            name: "b_x".into(),
            flags: 0,
            textures: vec![PackTexture {
                image: solid([8, 16, 24, 255], 3, 1),
                format: 2,
                flags: 0,
                dds: None,
            }],
        },
    ];
    let tml = ops::pack_tml(&mats, CodecOptions::default()).unwrap();
    let bytes = tml.write().unwrap();
    let back = Tml::read(&bytes).unwrap();
    let names: Vec<String> = back.materials.iter().map(|m| m.name()).collect();
    assert_eq!(names, ["Apple", "b_x", "zebra"]);
    let ids: Vec<u32> = back.textures.iter().map(|t| t.header.id).collect();
    assert_eq!(ids, [3, 2, 1, 0]);
    assert_eq!(back.materials[0].texture_ids, vec![3, 2]);
    assert_eq!(back.materials[2].texture_ids, vec![0]);
    let d = CodecOptions::default();
    assert_eq!(
        back.decode_texture(0, d).unwrap(),
        solid([0, 255, 0, 255], 4, 4)
    );
    assert_eq!(
        back.decode_texture(1, d).unwrap(),
        solid([17, 34, 51, 68], 1, 1)
    );
    assert_eq!(
        back.decode_texture(2, d).unwrap(),
        solid([8, 16, 24, 255], 3, 1)
    );
    assert_eq!(
        back.decode_texture(3, d).unwrap(),
        solid([255, 0, 0, 255], 2, 2)
    );
    assert_eq!(
        jpog::dds::Dds::parse(&back.textures[0].data, "t")
            .unwrap()
            .levels
            .len(),
        3
    );
    // duplicate names (case-insensitively) are refused
    let mut dup = mats.clone();
    dup[2].name = "ZEBRA".into();
    assert!(ops::pack_tml(&dup, d).is_err());
    let mut five = mats.clone();
    five[0].textures = vec![five[0].textures[0].clone(); 5];
    assert!(ops::pack_tml(&five, d).is_err());
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("jpog-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn extraction_writes_decodable_pngs_inside_outdir() {
    let mut t = tml();
    // hostile and colliding names
    t.materials[0].name_field = jpog::tml::Material::name_field_from("../../evil").unwrap();
    t.materials[3].name_field = [0; 32];
    let root = temp_dir("extract");
    let out = root.join("out");
    let m = ops::extract_textures(&t, &out, CodecOptions::default()).unwrap();
    let files: Vec<Option<&str>> = m.textures.iter().map(|e| e.file.as_deref()).collect();
    assert_eq!(
        files,
        [
            Some("____evil.png"),
            Some("beta1.png"),
            Some("Beta_2.png"),
            Some("Beta_2-2.png"),
            None
        ]
    );
    assert!(m.textures[4]
        .skipped
        .as_deref()
        .unwrap_or("")
        .contains("format 9"));
    // nothing was written outside OUTDIR, everything inside decodes to the texture
    let listed: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(listed, vec![std::ffi::OsString::from("out")]);
    for (i, e) in m.textures.iter().enumerate() {
        if let Some(f) = &e.file {
            let png = std::fs::read(out.join(f)).unwrap();
            assert_eq!(
                decode_png(&png).unwrap(),
                t.decode_texture(i, CodecOptions::default()).unwrap(),
                "{f}"
            );
        }
    }
    let json: serde_json::Value = serde_json::from_str(&m.to_json()).unwrap();
    assert_eq!(json["textures"][1]["file"], "beta1.png");
    let listing: serde_json::Value = serde_json::from_str(&ops::list_tml(&t).to_json()).unwrap();
    assert_eq!(listing["materials"][2]["name"], "Beta_2");
    assert_eq!(listing["textures"][3]["materials"][0], "Beta_2");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn tkl_edits_append_without_renumbering() {
    let bytes = common::tkl_fixture();
    let mut tkl = Tkl::read(&bytes).unwrap();
    assert_eq!(tkl.push_location([7.0, 8.0, 9.0]).unwrap(), 3);
    assert_eq!(tkl.push_rotation([0.0, 1.0, 0.0, 0.0]).unwrap(), 3);
    let out = tkl.write().unwrap();
    let back = Tkl::read(&out).unwrap();
    assert_eq!(back, tkl);
    // the old keys are where they were
    assert_eq!(&back.locations[..3], &common::tkl_locations()[..]);
}

#[test]
fn malformed_input_errors_name_kind_record_field_and_offset() {
    let check = |r: Result<(), Error>,
                 want_kind: jpog::FileKind,
                 want_record: &str,
                 want_field: &str,
                 want_offset: u64| match r {
        Err(Error::Malformed {
            kind,
            record,
            field,
            offset,
            ..
        }) => {
            assert_eq!(
                (kind, record.as_str(), field, offset),
                (want_kind, want_record, want_field, want_offset)
            );
        }
        other => panic!("expected a malformed error, got {other:?}"),
    };
    // node 1's parent (at 0x7C + 0xB0 + 0xA0) set to 7 of 3 nodes
    let mut b = common::tmd_direct();
    let at = 0x7C + 0xB0 + 0xA0;
    b[at..at + 2].copy_from_slice(&7i16.to_le_bytes());
    check(
        Tmd::read(&b).map(|_| ()),
        jpog::FileKind::Tmd,
        "node 1",
        "parent",
        at as u64,
    );
    // texture 2's id (header at 12 + 2 headers + data) set past the count
    let mut b = common::tml_fixture();
    let tex = common::tml_textures();
    let at = 12 + 28 * 2 + tex[0].3.len() + tex[1].3.len();
    b[at..at + 4].copy_from_slice(&9u32.to_le_bytes());
    check(
        Tml::read(&b).map(|_| ()),
        jpog::FileKind::Tml,
        "texture 2",
        "id",
        at as u64,
    );
    // LOD 0 mesh 0 piece 1's palette entry names node 5 of 3
    let good = common::tmd_direct();
    let tmd = Tmd::read(&good).unwrap();
    let mesh_at = tmd.layout.as_ref().unwrap().mesh_block_offset;
    // mesh block 8 + lod 24 + mesh 44 + piece 0 (40 + 2×4 + 7×40 + 4×2) + piece 1 header 40
    let at = mesh_at + 8 + 24 + 44 + (40 + 8 + 280 + 8) + 40;
    let mut b = good.clone();
    assert_eq!(u32::from_le_bytes(b[at..at + 4].try_into().unwrap()), 1);
    b[at..at + 4].copy_from_slice(&5u32.to_le_bytes());
    check(
        Tmd::read(&b).map(|_| ()),
        jpog::FileKind::Tmd,
        "lod 0 mesh 0 piece 1",
        "palette",
        at as u64,
    );
    // a wrong size field is named too
    let mut b = good;
    b[8] ^= 1;
    check(
        Tmd::read(&b).map(|_| ()),
        jpog::FileKind::Tmd,
        "header",
        "fileSize-12",
        8,
    );
}

#[test]
fn a_model_built_from_scratch_reads_back() {
    use jpog::tmd::{Animation, Channel, Key, Lod, Mesh, Node, Piece, Vertex};
    let mut tmd = Tmd::new("NEWKL").unwrap();
    let ident = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let mut root = Node {
        rest_rotation: [0.0, 0.0, 0.0, 1.0],
        bind: ident,
        inverse_bind: ident,
        name_length: 0,
        name_field: [0; 15],
        parent: -1,
        flag: 0,
        rest_translation: [0.0; 3],
    };
    root.set_name("Root").unwrap();
    let mut child = root;
    child.set_name("Child").unwrap();
    child.parent = 0;
    tmd.nodes = vec![root, child];
    let (name_length, name_field) = jpog::tmd::short_name("Wave_lp", "animation").unwrap();
    let key = |t, l, r| Key {
        time: t,
        loc_index: l,
        rot_index: r,
    };
    tmd.animations.push(Animation {
        name_length,
        name_field,
        overlay: 0,
        unknown: 0,
        used_node_count: 2,
        duration: 1.0,
        channels: vec![
            Channel {
                flags: 1,
                keys: vec![key(0.0, 0, 0)],
            },
            Channel {
                flags: 0,
                keys: vec![key(0.0, 0, 0), key(1.0, 0, 1)],
            },
        ],
    });
    let v = |x: f32, y: f32, slot: u8| Vertex {
        position: [x, y, 0.0],
        normal: [0.0, 0.0, 1.0],
        weights: [255, 0, 0, 0],
        bones: [slot * 3, 0, 0, 0],
        uv: [x, -y],
    };
    let verts = vec![
        v(0.0, 0.0, 0),
        v(2.0, 0.0, 0),
        v(0.0, 2.0, 1),
        v(2.0, 2.0, 0),
    ];
    let mut p0 = Piece {
        verts_required: 0,
        box_center: [0.0; 3],
        box_extents: [0.0; 3],
        palette: vec![0, 1],
        vertices: verts.clone(),
        strip: vec![0, 1, 2, 3],
    };
    p0.recompute_derived(&verts);
    assert_eq!(p0.verts_required, 4);
    assert_eq!(
        (p0.box_center, p0.box_extents),
        ([1.0, 1.0, 0.0], [1.0, 1.0, 0.0])
    );
    tmd.mesh.lod_distance = 30.0;
    tmd.mesh.lods.push(Lod {
        shader_type: 0,
        sphere: [1.0, 1.0, 0.0, 1.5],
        meshes: vec![Mesh {
            material_field: jpog::tml::Material::name_field_from("Skin").unwrap(),
            pieces: vec![p0],
        }],
    });
    let bytes = tmd.write().unwrap();
    // size field and both scene-size copies agree with the layout
    assert_eq!(
        u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
        bytes.len() - 12
    );
    assert_eq!(bytes[0x1C..0x20], bytes[0x3C..0x40]);
    let back = Tmd::read(&bytes).unwrap();
    same_model(&back, &tmd);
    let g = &back.lod_geometry(0).unwrap()[0];
    assert_eq!(g.triangles, vec![[0, 1, 2], [2, 1, 3]]);
    assert_eq!(g.vertices[2].nodes[0], Some(1));
    assert_eq!(back.write().unwrap(), bytes);
}

#[test]
fn tml_rename_and_normalize_keep_references() {
    let mut t = tml();
    // rename "alpha" so that it sorts last, and move the first texture to the end
    t.materials[0].name_field = jpog::tml::Material::name_field_from("zz_top").unwrap();
    let moved = t.textures.remove(0);
    t.textures.push(moved);
    assert!(t.validate().is_err());
    t.normalize();
    t.validate().unwrap();
    let back = Tml::read(&t.write().unwrap()).unwrap();
    let names: Vec<String> = back.materials.iter().map(|m| m.name()).collect();
    assert_eq!(names, ["beta1", "Beta_2", "Zed", "zz_top"]);
    // "zz_top" still uses the 2×1 RGBA texture, now last in the file with id 0
    assert_eq!(back.materials[3].texture_ids, vec![0]);
    assert_eq!(back.material_textures("zz_top"), Some(vec![4]));
    assert_eq!(back.textures[4].data, vec![10, 20, 30, 40, 50, 60, 70, 80]);
    // "beta1" still points at the 5551 texture
    let i = back.material_textures("beta1").unwrap()[0];
    assert_eq!(back.textures[i].header.format, 2);
}

#[test]
fn aliased_or_escaping_pointers_are_refused() {
    let good = common::tmd_direct();
    let tmd = Tmd::read(&good).unwrap();
    let lay = tmd.layout.clone().unwrap();
    let (a0, a1) = (lay.animation_offsets[0], lay.animation_offsets[1]);
    // animation 1's channel 0 pointer made to alias animation 0's channel 0
    let mut b = good.clone();
    let src = a0 + 32;
    let dst = a1 + 32;
    let p: [u8; 4] = b[src..src + 4].try_into().unwrap();
    b[dst..dst + 4].copy_from_slice(&p);
    match Tmd::read(&b) {
        Err(Error::Malformed {
            record,
            field,
            problem,
            ..
        }) => {
            assert_eq!(
                (record.as_str(), field),
                ("animation 1 channel 0", "channel")
            );
            assert!(problem.contains("overlaps"), "{problem}");
        }
        other => panic!("expected an overlap error, got {other:?}"),
    }
    // a channel pointer past the scene block (into the mesh block) is refused
    let mut b = good.clone();
    b[dst..dst + 4].copy_from_slice(&common::raw(lay.mesh_block_offset).to_le_bytes());
    assert!(matches!(
        Tmd::read(&b),
        Err(Error::Malformed {
            field: "channel",
            ..
        })
    ));
    // a pointer below rawBase - 0x3C cannot be relocated
    let mut b = good;
    b[dst..dst + 4].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(
        Tmd::read(&b),
        Err(Error::Malformed {
            field: "channel pointer",
            ..
        })
    ));
}

#[test]
fn name_fields_are_measured_in_bytes_not_in_lossy_text() {
    // Six non-UTF-8 bytes and a NUL fit the 16-byte field; as lossy text they are six
    // U+FFFD (18 bytes), which the length checks used to count and refuse.
    let field = *b"\xff\xfe\xfd\xfc\xfb\xfa\0\0\0\0\0\0\0\0\0\0";
    let mut tkl = Tkl::read(&common::tkl_fixture()).unwrap();
    tkl.name_field = field;
    assert_eq!(&tkl.write().unwrap()[12..28], &field);
    tkl.name_field = [b'x'; 16];
    assert!(tkl.write().is_err(), "a name without its NUL is refused");
    let mut tmd = Tmd::read(&common::tmd_direct()).unwrap();
    tmd.header.tkl_name = field;
    assert_eq!(&tmd.write().unwrap()[0x0C..0x1C], &field);
    tmd.header.tkl_name = [b'x'; 16];
    assert!(tmd.write().is_err(), "a name without its NUL is refused");
}

#[test]
fn materials_are_found_by_exact_bytes_first_then_case_insensitively() {
    let mut t = tml();
    // Names in file order: alpha, beta1, Beta_2 (junk after its NUL), Zed.
    assert_eq!(t.find_material("Zed"), Some(3));
    assert_eq!(t.find_material("zED"), Some(3));
    assert_eq!(t.find_material("BETA_2"), Some(2));
    assert_eq!(t.find_material("Beta_2\0ignored"), Some(2));
    assert_eq!(t.find_material("beta"), None);
    // An exact match wins over an earlier case-insensitive one.
    t.materials[0].name_field = jpog::tml::Material::name_field_from("ZED").unwrap();
    assert_eq!(t.find_material("Zed"), Some(3));
    assert_eq!(t.find_material("ZED"), Some(0));
    assert_eq!(t.find_material("zed"), Some(0));
}
