// Writes rosbag2 test data (MCAP + SQLite3 + split folder) with implementations that share
// no code with asuka's C++ reader, plus expected.json describing every message field by field.
// Usage: node write_rosbag2.mjs OUTDIR
import fs from "node:fs";
import path from "node:path";
import { McapWriter } from "@mcap/core";
import { parse } from "@foxglove/rosmsg";
import { MessageWriter } from "@foxglove/rosmsg2-serialization";
import zstd from "@foxglove/wasm-zstd";
import lz4 from "lz4js";
import initSqlJs from "sql.js";

const OUT = process.argv[2];
if (!OUT) { console.error("usage: node write_rosbag2.mjs OUTDIR"); process.exit(2); }

// ---------------------------------------------------------------- message definitions
// ROS 2 .msg texts. Field types of dependencies are written the way ROS 2 packages write them
// (package-relative "PointField", "std_msgs/Header" without /msg/), since the dependency names
// in the concatenated schema are derived from exactly these tokens.
const MSGS = {
  "builtin_interfaces/msg/Time": "# Time since the epoch\nint32 sec\nuint32 nanosec\n",
  "std_msgs/msg/Header": "# Standard metadata for higher-level stamped data types.\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
  "geometry_msgs/msg/Quaternion": "float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
  "geometry_msgs/msg/Vector3": "float64 x\nfloat64 y\nfloat64 z\n",
  "sensor_msgs/msg/Imu": "std_msgs/Header header\n\ngeometry_msgs/Quaternion orientation\nfloat64[9] orientation_covariance # Row major about x, y, z axes\n\ngeometry_msgs/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\n\ngeometry_msgs/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance\n",
  "sensor_msgs/msg/PointField": "uint8 INT8    = 1\nuint8 UINT8   = 2\nuint8 INT16   = 3\nuint8 UINT16  = 4\nuint8 INT32   = 5\nuint8 UINT32  = 6\nuint8 FLOAT32 = 7\nuint8 FLOAT64 = 8\n\nstring name\nuint32 offset\nuint8  datatype\nuint32 count\n",
  "sensor_msgs/msg/PointCloud2": "std_msgs/Header header\n\nuint32 height\nuint32 width\n\nPointField[] fields\n\nbool    is_bigendian\nuint32  point_step\nuint32  row_step\nuint8[] data\n\nbool is_dense\n",
  "sensor_msgs/msg/Image": "std_msgs/Header header\n\nuint32 height\nuint32 width\n\nstring encoding\n\nuint8 is_bigendian\nuint32 step\n\nuint8[] data\n",
  "sensor_msgs/msg/CompressedImage": "std_msgs/Header header\n\nstring format\n\nuint8[] data\n",
  "livox_ros_driver2/msg/CustomMsg": "std_msgs/Header header\nuint64 timebase\nuint32 point_num\nuint8 lidar_id\nuint8[3] rsvd\nCustomPoint[] points\n",
  "livox_ros_driver2/msg/CustomPoint": "uint32 offset_time\nfloat32 x\nfloat32 y\nfloat32 z\nuint8 reflectivity\nuint8 tag\nuint8 line\n",
};
const PRIMITIVES = new Set(["bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16",
  "uint16", "int32", "uint32", "int64", "uint64", "string", "wstring"]);
const fullName = (dep) => dep.replace("/", "/msg/"); // "std_msgs/Header" -> "std_msgs/msg/Header"

// Sorted dependency names of one type, as written in its fields ("pkg/Name").
function dependencies(type) {
  const pkg = type.split("/")[0];
  const deps = new Set();
  for (const line of MSGS[type].split("\n")) {
    const tok = line.replace(/#.*/, "").trim().split(/\s+/)[0];
    if (!tok) continue;
    const base = tok.replace(/\[.*$/, "").replace(/<=\d+$/, "");
    if (PRIMITIVES.has(base)) continue;
    deps.add(base.includes("/") ? base : `${pkg}/${base}`);
  }
  return [...deps].sort();
}

// Concatenated "ros2msg" schema text: root first, then every dependency once, depth first in
// sorted order, each preceded by "\n" + 80 '=' + "\nMSG: <name>\n". style "rosbag2" names
// dependencies "pkg/Name" (what rosbag2's LocalMessageDefinitionSource actually emits);
// style "design_doc" names them "pkg/msg/Name" (the form shown in rosbag2's design document).
function schemaText(rootType, style) {
  const seen = new Set();
  const expand = (type) => {
    let out = MSGS[type];
    for (const dep of dependencies(type)) {
      if (seen.has(dep)) continue;
      seen.add(dep);
      const shown = style === "design_doc" ? fullName(dep) : dep;
      out += `\n${"=".repeat(80)}\nMSG: ${shown}\n` + expand(fullName(dep));
    }
    return out;
  };
  return expand(rootType);
}

const TOPICS = [
  { name: "/imu", type: "sensor_msgs/msg/Imu" },
  { name: "/points", type: "sensor_msgs/msg/PointCloud2" },
  { name: "/livox/lidar", type: "livox_ros_driver2/msg/CustomMsg" },
  { name: "/camera/image", type: "sensor_msgs/msg/Image" },
  { name: "/camera/image/compressed", type: "sensor_msgs/msg/CompressedImage" },
];
// Jazzy (metadata version 9) writes QoS profiles as a YAML sequence with symbolic enum values;
// the same YAML, as a string, goes into MCAP channel metadata and the sqlite3 topics table.
const INF = "\n    sec: 9223372036\n    nsec: 854775807";
const QOS_YAML = `- history: keep_last\n  depth: 10\n  reliability: reliable\n  durability: volatile\n  deadline:${INF}\n  lifespan:${INF}\n  liveliness: automatic\n  liveliness_lease_duration:${INF}\n  avoid_ros_namespace_conventions: false`;

// ---------------------------------------------------------------- messages
// All times are integer nanoseconds (BigInt): T0 * 1e9 does not fit a double exactly.
const SEC = 1_000_000_000n, MS = 1_000_000n;
const T0 = 1_700_000_000n * SEC;
const header = (ns, frame_id) => ({ stamp: { sec: Number(ns / SEC), nanosec: Number(ns % SEC) }, frame_id });
const msgs = [];
const add = (topic, index, stampNs, logDelay, msg, extra) =>
  msgs.push({ topic, type: TOPICS.find((t) => t.name === topic).type, index, logTime: stampNs + logDelay, msg, extra });

for (let i = 0; i < 40; i++) {
  const ns = T0 + BigInt(i) * 5n * MS;
  add("/imu", i, ns, 1n * MS, {
    header: header(ns, "imu_link"),
    orientation: { x: 0.1, y: -0.2, z: 0.3, w: 0.9 + i * 1e-3 },
    orientation_covariance: [0, 1, 2, 3, 4, 5, 6, 7, 8].map((v) => v + i),
    angular_velocity: { x: 0.01 * i, y: 0 - 0.02 * i, z: 0.5 }, // "0 -" avoids -0 for i = 0
    angular_velocity_covariance: Array(9).fill(0.001),
    linear_acceleration: { x: 0.1, y: 0.2 + 0.001 * i, z: 9.81 },
    linear_acceleration_covariance: Array(9).fill(0.01),
  });
}

// PointField datatypes: FLOAT32 = 7, UINT16 = 4. Bytes 18..19 of each point are zero padding;
// bytes past width*point_step at the end of a row are filled with 0xAB so a reader that
// ignores row_step reads visible garbage.
const FIELDS = [["x", 0, 7], ["y", 4, 7], ["z", 8, 7], ["intensity", 12, 7], ["ring", 16, 4], ["time", 20, 7]]
  .map(([name, offset, datatype]) => ({ name, offset, datatype, count: 1 }));
function cloud(k, ns, height, width, rowPad) {
  const point_step = 24, row_step = point_step * width + rowPad;
  const data = new Uint8Array(row_step * height);
  const dv = new DataView(data.buffer);
  const points = [];
  for (let r = 0; r < height; r++) {
    data.fill(0xab, r * row_step + point_step * width, (r + 1) * row_step);
    for (let c = 0; c < width; c++) {
      const j = r * width + c, o = r * row_step + c * point_step;
      const p = { x: k + 0.01 * j, y: 0 - 0.5 * j, z: 0.25, intensity: j % 17, ring: j % 16, time: j * 1e-4 };
      for (const [name, off] of [["x", 0], ["y", 4], ["z", 8], ["intensity", 12], ["time", 20]]) {
        dv.setFloat32(o + off, p[name], true);
        p[name] = Math.fround(p[name]); // expected value is what float32 storage keeps
      }
      dv.setUint16(o + 16, p.ring, true);
      points.push({ row: r, col: c, ...p });
    }
  }
  const msg = { header: header(ns, "lidar"), height, width, fields: FIELDS, is_bigendian: false,
    point_step, row_step, data, is_dense: true };
  return [msg, { decoded_points: points }];
}
for (let k = 0; k < 4; k++) {
  const ns = T0 + BigInt(k) * 50n * MS;
  add("/points", k, ns, 2n * MS, ...cloud(k, ns, 1, 50 + 7 * k, 0));
}
add("/points", 4, T0 + 200n * MS, 2n * MS, ...cloud(4, T0 + 200n * MS, 2, 3, 8)); // row_step 80

for (let k = 0; k < 3; k++) {
  const ns = T0 + BigInt(k) * 100n * MS;
  const points = [];
  for (let j = 0; j < 30 + k; j++) {
    points.push({ offset_time: 1000 * j, x: 1 + j, y: 2 - 0.5 * j, z: 0.125 * j, reflectivity: 10 + j, tag: 0x10, line: j % 6 });
  }
  // float32 fields must hold values float32 represents exactly, or expected.json would lie.
  for (const p of points) for (const f of ["x", "y", "z"]) if (Math.fround(p[f]) !== p[f]) throw new Error("inexact");
  add("/livox/lidar", k, ns, 3n * MS, { header: header(ns, "livox_frame"), timebase: ns,
    point_num: 30 + k, lidar_id: 3, rsvd: [1, 2, 3], points });
}

for (let k = 0; k < 2; k++) {
  const ns = T0 + 30n * MS + BigInt(k) * 100n * MS;
  const data = Uint8Array.from({ length: 20 }, (_, i) => (i + k) % 256); // i = r*5 + c
  add("/camera/image", k, ns, 0n, { header: header(ns, "cam"), height: 4, width: 5, encoding: "mono8",
    is_bigendian: 0, step: 5, data });
}
for (let k = 0; k < 2; k++) {
  const ns = T0 + 40n * MS + BigInt(k) * 100n * MS;
  add("/camera/image/compressed", k, ns, 0n, { header: header(ns, "cam"), format: "jpeg",
    data: Uint8Array.from({ length: 16 }, (_, i) => (i * 7 + k) % 256) });
}

// Serialize (XCDR1 little endian, header 00 01 00 00) with writers built from the schema text.
const writers = new Map(TOPICS.map((t) => [t.type, new MessageWriter(parse(schemaText(t.type, "rosbag2"), { ros2: true }))]));
for (const m of msgs) m.cdr = writers.get(m.type).writeMessage(m.msg);
const cmp = (a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 :
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.index - b.index);
const sorted = [...msgs].sort(cmp);

// ---------------------------------------------------------------- MCAP
const utf8 = new TextEncoder();
async function writeMcap(file, list, { compression = "zstd", style = "rosbag2", ...options } = {}) {
  const fd = fs.openSync(file, "w");
  let pos = 0n, chunks = 0;
  const writable = { position: () => pos, write: async (buf) => { fs.writeSync(fd, buf); pos += BigInt(buf.byteLength); } };
  const compressChunk = (data) => {
    chunks++;
    if (compression === "zstd") return { compression, compressedData: zstd.compress(data, 3) };
    if (compression === "lz4") return { compression, compressedData: Uint8Array.from(lz4.compress(data)) }; // LZ4 frame
    return { compression: "", compressedData: data };
  };
  // Small chunks so that the test data spans several chunks, as real bags do.
  const w = new McapWriter({ writable, chunkSize: 4096, compressChunk, ...options });
  await w.start({ profile: "ros2", library: "asuka independent_writer (@mcap/core 2.2.2)" });
  const channel = new Map();
  for (const t of TOPICS) {
    const schemaId = await w.registerSchema({ name: t.type, encoding: "ros2msg", data: utf8.encode(schemaText(t.type, style)) });
    channel.set(t.name, await w.registerChannel({ topic: t.name, schemaId, messageEncoding: "cdr",
      metadata: new Map([["offered_qos_profiles", QOS_YAML]]) }));
  }
  await w.addMetadata({ name: "rosbag2", metadata: new Map([["ROS_DISTRO", "jazzy"]]) });
  for (const m of list) {
    await w.addMessage({ channelId: channel.get(m.topic), sequence: m.index, logTime: m.logTime, publishTime: m.logTime, data: m.cdr });
  }
  await w.end();
  fs.closeSync(fd);
  return { chunk_count: chunks };
}

// ---------------------------------------------------------------- rosbag2 metadata (YAML)
function bagInfoYaml(storage, files) { // body of rosbag2_bagfile_information, unindented
  const range = (l) => ({ start: l[0].logTime, dur: l[l.length - 1].logTime - l[0].logTime });
  const all = range(sorted);
  const qos = QOS_YAML.split("\n").map((l) => "        " + l).join("\n");
  let y = `version: 9\nstorage_identifier: ${storage}\nduration:\n  nanoseconds: ${all.dur}\n` +
    `starting_time:\n  nanoseconds_since_epoch: ${all.start}\nmessage_count: ${sorted.length}\ntopics_with_message_count:\n`;
  for (const t of TOPICS) {
    y += `  - topic_metadata:\n      name: ${t.name}\n      type: ${t.type}\n      serialization_format: cdr\n` +
      `      offered_qos_profiles:\n${qos}\n      type_description_hash: ""\n` +
      `    message_count: ${msgs.filter((m) => m.topic === t.name).length}\n`;
  }
  y += `compression_format: ""\ncompression_mode: ""\nrelative_file_paths:\n` + files.map((f) => `  - ${f.path}\n`).join("");
  y += "files:\n";
  for (const f of files) {
    const r = range(f.list);
    y += `  - path: ${f.path}\n    starting_time:\n      nanoseconds_since_epoch: ${r.start}\n` +
      `    duration:\n      nanoseconds: ${r.dur}\n    message_count: ${f.list.length}\n`;
  }
  return y + "custom_data: ~\nros_distro: jazzy\n";
}

// ---------------------------------------------------------------- SQLite3 (.db3)
// sql.js is SQLite compiled to WebAssembly (no native build): the database is built in memory,
// then its bytes are exported and written to the file.
async function writeDb3(file) {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  const run = (sql, params) => { const st = db.prepare(sql); st.run(params); st.free(); };
  // Same DDL text as rosbag2_storage_sqlite3 (schema version 4, Jazzy) so `.schema` looks alike.
  db.exec("CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL);" +
    "CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,metadata TEXT NOT NULL);" +
    "CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL,type_description_hash TEXT NOT NULL);" +
    "CREATE TABLE message_definitions(id INTEGER PRIMARY KEY,topic_type TEXT NOT NULL,encoding TEXT NOT NULL,encoded_message_definition TEXT NOT NULL,type_description_hash TEXT NOT NULL);" +
    "CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL, data BLOB NOT NULL);" +
    "CREATE INDEX timestamp_idx ON messages (timestamp ASC);");
  run("INSERT INTO schema (schema_version, ros_distro) VALUES (?, ?)", [4, "jazzy"]);
  const topicId = new Map();
  db.exec("BEGIN");
  for (const t of TOPICS) {
    run("INSERT INTO topics (name, type, serialization_format, offered_qos_profiles, type_description_hash) VALUES (?, ?, ?, ?, ?)",
      [t.name, t.type, "cdr", QOS_YAML, ""]);
    topicId.set(t.name, db.exec("SELECT last_insert_rowid()")[0].values[0][0]);
    run("INSERT INTO message_definitions (topic_type, encoding, encoded_message_definition, type_description_hash) VALUES (?, ?, ?, ?)",
      [t.type, "ros2msg", schemaText(t.type, "rosbag2"), ""]);
  }
  // Grouped by topic (msgs is in generation order), NOT by time: readers must ORDER BY timestamp.
  // Timestamps are BigInt (about 1.7e18 ns, beyond 2^53); sql.js binds BigInt as a 64-bit integer.
  const ins = db.prepare("INSERT INTO messages (timestamp, topic_id, data) VALUES (?, ?, ?)");
  for (const m of msgs) ins.run([m.logTime, topicId.get(m.topic), m.cdr]);
  ins.free();
  run("INSERT INTO metadata (metadata_version, metadata) VALUES (?, ?)",
    [9, bagInfoYaml("sqlite3", [{ path: "messages.db3", list: sorted }])]);
  db.exec("COMMIT");
  fs.writeFileSync(file, db.export());
  db.close();
}

// ---------------------------------------------------------------- main
await zstd.isLoaded;
fs.mkdirSync(OUT, { recursive: true });
for (const f of ["chunked_zstd.mcap", "chunked_lz4.mcap", "chunked_none.mcap", "unchunked.mcap",
  "no_summary.mcap", "messages.db3", "split", "expected.json"]) fs.rmSync(path.join(OUT, f), { recursive: true, force: true });

const files = {};
const mcap = async (name, opts, info) => {
  const r = await writeMcap(path.join(OUT, name), sorted, opts);
  files[name] = { format: "mcap", schema_style: opts.style ?? "rosbag2", ...info, ...(info.chunked ? r : {}) };
};
await mcap("chunked_zstd.mcap", { compression: "zstd" }, { chunked: true, compression: "zstd", summary: true, message_indexes: true });
await mcap("chunked_lz4.mcap", { compression: "lz4" }, { chunked: true, compression: "lz4", summary: true, message_indexes: true });
// Also the one file whose schemas name dependencies "pkg/msg/Name" (see schemaText).
await mcap("chunked_none.mcap", { compression: "", style: "design_doc" }, { chunked: true, compression: "", summary: true, message_indexes: true });
await mcap("unchunked.mcap", { useChunks: false }, { chunked: false, summary: true, message_indexes: false });
await mcap("no_summary.mcap", { compression: "zstd", useStatistics: false, useSummaryOffsets: false,
  repeatSchemas: false, repeatChannels: false, useAttachmentIndex: false, useMetadataIndex: false,
  useMessageIndex: false, useChunkIndex: false }, { chunked: true, compression: "zstd", summary: false, message_indexes: false });

await writeDb3(path.join(OUT, "messages.db3"));
files["messages.db3"] = { format: "sqlite3", schema_version: 4, ros_distro: "jazzy", metadata_version: 9,
  insert_order: "grouped by topic, not by timestamp" };

// Split bag: first half of the messages by log time in split_0, the rest in split_1.
const half = Math.ceil(sorted.length / 2);
const parts = [{ path: "split_0.mcap", list: sorted.slice(0, half) }, { path: "split_1.mcap", list: sorted.slice(half) }];
fs.mkdirSync(path.join(OUT, "split"));
for (const p of parts) await writeMcap(path.join(OUT, "split", p.path), p.list);
fs.writeFileSync(path.join(OUT, "split", "metadata.yaml"),
  "rosbag2_bagfile_information:\n" + bagInfoYaml("mcap", parts).replace(/^(?=.)/gm, "  "));
files.split = { format: "folder", storage_identifier: "mcap", metadata_version: 9, schema_style: "rosbag2",
  files: parts.map((p) => ({ path: p.path, message_count: p.list.length, starting_time_ns: p.list[0].logTime.toString(),
    end_time_ns: p.list[p.list.length - 1].logTime.toString() })) };

// ---------------------------------------------------------------- expected.json
const toJson = (v) => (typeof v === "bigint" ? v.toString()
  : v instanceof Uint8Array ? Buffer.from(v).toString("hex")
  : Array.isArray(v) ? v.map(toJson)
  : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)]))
  : v);
const expected = {
  generator: "tests/bag/independent_writer/write_rosbag2.mjs",
  t0_ns: T0.toString(),
  files,
  topics: TOPICS.map((t) => ({ ...t, count: msgs.filter((m) => m.topic === t.name).length,
    serialization_format: "cdr", offered_qos_profiles: QOS_YAML })),
  schemas: Object.fromEntries(["rosbag2", "design_doc"].map((s) => [s, Object.fromEntries(TOPICS.map((t) => [t.type, schemaText(t.type, s)]))])),
  messages: sorted.map((m) => ({ topic: m.topic, type: m.type, index: m.index, log_time_ns: m.logTime.toString(),
    publish_time_ns: m.logTime.toString(), cdr_size: m.cdr.byteLength, cdr_hex: toJson(m.cdr), fields: toJson(m.msg),
    ...(m.extra ? { extra: toJson(m.extra) } : {}) })),
};
fs.writeFileSync(path.join(OUT, "expected.json"), JSON.stringify(expected, null, 1) + "\n");
console.log(`wrote ${sorted.length} messages x ${Object.keys(files).length} bags to ${OUT}`);
