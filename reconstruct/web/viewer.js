// The viewer of the Village Archery Ceremony: the embedded GLB played with three.js, captions of
// the current event, a scrubber marked with the footnotes, camera presets, orbit, name tags and
// the person under the pointer, the film (the video's camera path, carried as data) and a kiosk's attract
// loop.  Uses the global THREE of the inlined bundle; fetches nothing.
// window.xiangshe is a small API for tests and kiosks (plan coordinates: x east, y north, z up).
(function () {
  'use strict';
  const DATA = JSON.parse(document.getElementById('xs-data').textContent);
  const $ = (id) => document.getElementById(id);
  const EVENTS = DATA.events;                     // sorted by start
  const DURATION = DATA.duration;

  // -- frames: glTF Y-up (x, y up, z south) <-> plan (x east, y north, z up)
  const toPlan = (v) => [v.x, -v.z, v.y];
  const toYup = (p) => [p[0], p[2], -p[1]];
  const PARAMS = new URLSearchParams(location.search);
  const MAX_TAGS = (DATA.tags && DATA.tags.max) || 4;
  const round = (a, n) => a.map((x) => Math.round(x * 10 ** n) / 10 ** n);

  // -- the events: the same rule as Plan.current_event (latest started, or the last for `linger` s)
  function currentEvent(t) {
    let cur = null, last = null;
    for (const e of EVENTS) {
      if (e.start > t) break;
      if (t < e.end) cur = e;
      last = e;
    }
    if (cur) return cur;
    if (last && t - last.end < DATA.linger) return last;
    return null;
  }

  function clauseOf(actor, t) {
    let now = null, before = null, after = null;
    for (const e of EVENTS) {
      if (!e.actors.includes(actor)) continue;
      if (e.start <= t && t < e.end) now = e;
      else if (e.end <= t) before = e;
      else if (!after) after = e;
    }
    if (now) return {when: 'now', event: now};
    if (before) return {when: 'last', event: before};
    if (after) return {when: 'next', event: after};
    return null;
  }

  function fmtTime(t) {
    const s = Math.max(0, t), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    return `${h}:${String(m).padStart(2, '0')}:${r.toFixed(1).padStart(4, '0')}`;
  }

  // -- the page around the scene
  function fillPage() {
    const r = DATA.reading;
    $('reading').innerHTML = '';
    const zh = document.createElement('span');
    zh.textContent = `讀法 ${r.name} `;
    const en = document.createElement('span');
    en.className = 'en';
    en.textContent = `(${r.name_en}; ${r.file})`;
    $('reading').append(zh, en);
    for (const s of r.sources) {
      const li = document.createElement('li');
      li.textContent = s;
      $('sources').append(li);
    }
    const width = $('track').clientWidth || 800;
    let lastLabel = -Infinity;
    for (const f of DATA.footnotes) {
      const m = document.createElement('div');
      m.className = 'mark';
      m.style.left = `${(100 * f.start) / DURATION}%`;
      m.title = `注 ${f.footnote} — ${fmtTime(f.start)}`;
      m.dataset.footnote = f.footnote;
      const x = (width * f.start) / DURATION;
      if (x - lastLabel > 24) {                      // number the marks that have room
        const n = document.createElement('span');
        n.textContent = f.footnote;
        m.append(n);
        lastLabel = x;
      }
      m.addEventListener('click', () => view.setTime(f.start));
      $('marks').append(m);
    }
    const scrub = $('scrub');
    scrub.max = DURATION;
    scrub.addEventListener('input', () => view.setTime(parseFloat(scrub.value)));
    $('play').addEventListener('click', () => (view.playing ? view.pause() : view.play()));
    $('speed').addEventListener('change', () => { view.speed = parseFloat($('speed').value); });
    $('tags').addEventListener('click', () => view.showTags(!view.tags));
    $('film').addEventListener('click', () => view.setFilm(!view.film));
    if (EVIDENCE.legend) {
      $('evidence').hidden = false;
      $('evidence').addEventListener('click', () => view.setEvidence(!view.evidence));
      for (const [kind, k] of Object.entries(EVIDENCE.legend)) {
        const row = document.createElement('div');
        row.dataset.kind = kind;
        const sw = document.createElement('i');
        sw.style.background = k.colour;
        row.append(sw, k.label);
        $('legend').append(row);
      }
    }
    const none = document.createElement('option');     // shown while the camera is free or filming
    none.value = '';
    none.textContent = '視角 view…';
    $('presets').append(none);
    for (const [name, p] of Object.entries(DATA.presets)) {
      const o = document.createElement('option');
      o.textContent = p.label;
      o.value = name;
      $('presets').append(o);
    }
    $('presets').addEventListener('change', () => { if ($('presets').value) view.setPreset($('presets').value); });
    if (CMP) fillDifferences();
    document.addEventListener('keydown', (ev) => {
      if (ev.code === 'Space' && ev.target.tagName !== 'SELECT') {
        ev.preventDefault();
        view.playing ? view.pause() : view.play();
      }
    });
  }

  // the compare page's list: each difference a link to its moment (and to its place, for a landmark)
  const KINDS = {statement: '判 verdict', landmark: '位 landmark', only: '唯 only in', person: '人 person'};
  function fillDifferences() {
    $('diffs').hidden = false;
    const head = $('diffs-head');
    const a = document.createElement('span'), b = document.createElement('span');
    a.className = 'a'; b.className = 'b';
    a.textContent = `A ${CMP.a.name} (solid)`;
    b.textContent = `B ${CMP.b.name} (ghost)`;
    head.append(`異 ${CMP.differences.length} differences: `, a, ' · ', b);
    CMP.differences.forEach((d, i) => {
      const li = document.createElement('li');
      li.dataset.index = i;
      li.dataset.moment = d.moment;
      const kind = document.createElement('span');
      kind.className = 'kind';
      kind.textContent = KINDS[d.kind] || d.kind;
      const when = document.createElement('span');
      when.className = 'when';
      when.textContent = fmtTime(d.moment);
      const label = document.createElement('b');
      label.textContent = d.label;
      const detail = document.createElement('div');
      detail.textContent = d.detail;
      li.append(when, kind, label, detail);
      li.addEventListener('click', () => view.jump(i));
      $('diffs-list').append(li);
    });
  }

  function showCaption(t) {
    const e = currentEvent(t);
    $('cap-fn').textContent = e && e.footnote != null ? `注 ${e.footnote}` : '';
    $('cap-zh').textContent = e ? e.shown : '';     // 射, 交, 欲 restored from the data's pinyin
    $('cap-en').textContent = e ? e.gloss : '';
    $('clock').textContent = `${fmtTime(t)} / ${fmtTime(DURATION)}`;
    $('scrub').value = t;
    return e;
  }

  // -- the scene and the camera path (both gzipped and base64'd in the page)
  async function unzip(id) {
    const b64 = $(id).textContent.trim();
    const zipped = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const stream = new Blob([zipped]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).arrayBuffer();
  }

  async function loadGltf(id = 'xs-scene') {
    if (!$(id) || !$(id).textContent.trim()) return null;
    const buf = await unzip(id);
    return new Promise((ok, bad) => new THREE.GLTFLoader().parse(buf, '', ok, bad));
  }

  // -- the evidence view (DATA.evidence, issue 32): the ground and the things coloured by what they rest on
  const EVIDENCE = DATA.evidence || {};

  function basisLines(basis) {
    return (basis || []).map((b) => {
      if (b.chosen) return `CHOSEN — ${b.chosen}`;
      const src = (EVIDENCE.sources || {})[b.source];
      const name = src ? `${b.source} (${src.title}${src.edition ? ', ' + src.edition : ''})` : b.source;
      return `${name}${b.at ? ' ' + b.at : ''}: 「${b.quote}」`;
    });
  }

  // -- the compare page (DATA.compare): B's scene as a ghost, at B's time of the same act (the warp's knots)
  const CMP = DATA.compare || null;
  function ghostTimeAt(t) {
    const w = CMP.warp;
    if (t <= w[0][0]) return w[0][1];
    let lo = 0, hi = w.length - 1;
    if (t >= w[hi][0]) return w[hi][1];
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (w[mid][0] <= t) lo = mid; else hi = mid;
    }
    return w[lo][1] + ((w[hi][1] - w[lo][1]) * (t - w[lo][0])) / (w[hi][0] - w[lo][0]);
  }

  // the film's camera path (xiangshe-camera/1, docs/camera-path.md): the keys the video is filmed with,
  // interpolated linearly column by column between keys (scene.shots.keys_at); nothing is planned here
  let FILM = null;
  async function loadFilm() {
    const doc = JSON.parse(new TextDecoder().decode(await unzip('xs-camera')));
    if (doc.format !== 'xiangshe-camera/1') throw new Error(`camera path: unknown format ${doc.format}`);
    const col = Object.fromEntries(doc.key_columns.map((c, i) => [c, i]));
    FILM = {doc, keys: doc.keys, col, times: Float64Array.from(doc.keys, (k) => k[0])};
    return FILM;
  }

  function filmAt(t) {
    const {keys, times, col} = FILM;
    let lo = 0, hi = times.length - 1;
    if (t <= times[0]) hi = 0;
    else if (t >= times[hi]) lo = hi;
    else {
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (times[mid] <= t) lo = mid; else hi = mid;
      }
    }
    const a = keys[lo], b = keys[hi];
    const u = hi === lo ? 0 : (t - times[lo]) / (times[hi] - times[lo]);
    const v = (name) => a[col[name]] + (b[col[name]] - a[col[name]]) * u;
    return {eye: [v('eye_x'), v('eye_y'), v('eye_z')], target: [v('target_x'), v('target_y'), v('target_z')],
            up: [v('up_x'), v('up_y'), v('up_z')], vfov: v('vfov')};
  }

  // the vertical field of view that shows at least the film's frame (its aspect: the path's size) on this screen
  function containFov(vfov, aspect) {
    const [w, h] = FILM.doc.size;
    const filmAspect = w / h;
    if (aspect >= filmAspect) return vfov;
    const half = Math.atan(Math.tan((vfov * Math.PI) / 360) * (filmAspect / aspect));
    return (half * 360) / Math.PI;
  }

  // -- the panels: what of the screen they leave free for the scene
  const PANELS = ['head', 'tools', 'bottom', 'diffs', 'legend', 'info', 'invite'];
  function panelRects() {
    const out = [];
    for (const id of PANELS) {
      const el = $(id);
      if (!el || getComputedStyle(el).display === 'none') continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) out.push({id, left: r.left, top: r.top, right: r.right, bottom: r.bottom});
    }
    return out;
  }

  function freeRect() {
    const W = window.innerWidth, H = window.innerHeight, gap = 8;
    let top = gap, bottom = H - gap, left = gap, right = W - gap;
    for (const r of panelRects()) {
      if (r.id === 'info' || r.id === 'invite') continue;
      if (r.bottom - r.top > H / 3) {                  // a side panel (the compare page's differences)
        if (r.left > W / 2) right = Math.min(right, r.left - gap);
        else left = Math.max(left, r.right + gap);
      } else if (r.top < H / 2) top = Math.max(top, r.bottom + gap);
      else bottom = Math.min(bottom, r.top - gap);
    }
    return {left, right, top, bottom};
  }

  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

  const view = {
    time: 0, playing: false, speed: 5, tags: true, dirty: true, pinned: null, attract: null,
    ghostPeople: new Map(), ghostProps: new Map(), ghostTime: 0,
    idle: 1000 * (parseFloat(PARAMS.get('idle')) > 0 ? parseFloat(PARAMS.get('idle')) : (DATA.idle || 60)),
    lastInput: performance.now(),
    people: new Map(), props: new Map(), nodes: new Map(),

    init(gltf, ghost) {
      const host = $('view');
      const renderer = new THREE.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
      renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
      renderer.setSize(host.clientWidth, host.clientHeight);
      host.append(renderer.domElement);
      const labels = new THREE.CSS2DRenderer({element: $('labels')});
      labels.setSize(host.clientWidth, host.clientHeight);
      const scene = new THREE.Scene();
      scene.background = new THREE.Color(0xdfe4e6);
      scene.add(new THREE.HemisphereLight(0xffffff, 0x8a7a60, 1.8));
      const sun = new THREE.DirectionalLight(0xffffff, 2.2);
      sun.position.set(40, 80, 60);
      scene.add(sun);
      scene.add(gltf.scene);
      const camera = new THREE.PerspectiveCamera(38, host.clientWidth / host.clientHeight, 0.1, 3000);
      const controls = new THREE.OrbitControls(camera, renderer.domElement);
      controls.maxPolarAngle = Math.PI * 0.499;
      controls.addEventListener('change', () => { this.dirty = true; });
      controls.addEventListener('start', () => { this.fitted = false; });     // the user's own view now
      Object.assign(this, {renderer, labels, scene, camera, controls, root: gltf.scene});
      gltf.scene.updateMatrixWorld(true);
      const ground = gltf.scene.getObjectByName('ground');
      this.groundBox = new THREE.Box3().setFromObject(ground || gltf.scene);

      gltf.scene.traverse((o) => {
        this.nodes.set(o.name, o);
        if (o.userData && o.userData.actor) {
          this.people.set(o.userData.actor, o);
          const box = document.createElement('div');   // placed by the CSS2D renderer; the tag inside it is
          box.className = 'tagbox';                      // nudged off its head when another tag is there
          const tag = document.createElement('div');
          tag.className = 'tag off';
          tag.dataset.actor = o.userData.actor;
          tag.textContent = o.userData.actor;             // the text's own name (司射, 上耦上射 …)
          tag.title = (DATA.people[o.userData.actor] || {}).label || '';
          box.append(tag);
          const obj = new THREE.CSS2DObject(box);
          obj.position.set(0, 1.95, 0);
          o.add(obj);
          o.userData.tag = tag;
        } else if (o.userData && o.userData.prop) {
          this.props.set(o.userData.prop, o);
        }
      });
      if (ghost) this.addGhost(ghost);
      // the clip is posed at an absolute time (action.time, then update(0)): no loop or clamp
      // bookkeeping of the mixer's own clock, so scrubbing back and forth is exact
      this.mixer = new THREE.AnimationMixer(gltf.scene);
      this.actions = gltf.animations.map((clip) => this.mixer.clipAction(clip).play());
      this.raycaster = new THREE.Raycaster();
      renderer.domElement.addEventListener('pointermove', (ev) => this.hover(ev, false));
      renderer.domElement.addEventListener('click', (ev) => this.hover(ev, true));
      window.addEventListener('resize', () => this.resize());
      // a panel that changes size (the fonts arrive, the sources unfold) refits a fitted view
      const refit = new ResizeObserver(() => {
        if (this.fitted && !this.film && this.preset) { this.setPreset(this.preset); this.render(); }
      });
      for (const id of ['head', 'tools', 'bottom', 'diffs', 'legend']) refit.observe($(id));
      // any input stops the attract loop and restarts the idle clock
      for (const kind of ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart']) {
        window.addEventListener(kind, () => this.input(), {capture: true, passive: true});
      }
      this.setPreset('overview');
      this.setTime(0);
      this.lastInput = performance.now();              // the idle clock starts with the page shown
      let last = performance.now();
      const loop = (now) => {
        const dt = Math.min(0.25, (now - last) / 1000);
        last = now;
        if (this.attract) this.attractStep(dt);
        else if (this.playing) {
          const t = this.time + dt * this.speed;
          this.setTime(t);
          if (t >= DURATION) this.pause();
        }
        if (!this.attract && now - this.lastInput > this.idle) this.startAttract();
        if (this.dirty) this.render();
        requestAnimationFrame(loop);
      };
      requestAnimationFrame(loop);
    },

    // the landmark a ground mesh belongs to (its node's extras, or its parent's)
    landmarkOf(o) {
      while (o && o !== this.root) {
        if (o.userData && o.userData.landmark) return o.userData.landmark;
        o = o.parent;
      }
      return null;
    },

    evidenceKindOf(o) {
      if (o.userData.prop) return EVIDENCE.props[o.userData.prop] || null;
      const lm = this.landmarkOf(o);
      return lm && EVIDENCE.landmarks[lm] ? EVIDENCE.landmarks[lm].evidence : null;
    },

    setEvidence(on) {
      this.evidence = !!on && !!EVIDENCE.legend;
      $('evidence').classList.toggle('on', this.evidence);
      $('legend').hidden = !this.evidence;
      if (!this.evidenceMats) {
        const mat = (hex) => new THREE.MeshStandardMaterial({color: new THREE.Color(hex), roughness: 0.85});
        this.evidenceMats = {neutral: mat(EVIDENCE.neutral)};
        for (const [kind, k] of Object.entries(EVIDENCE.legend || {})) this.evidenceMats[kind] = mat(k.colour);
        for (const [lm, hex] of Object.entries(EVIDENCE.ground || {})) this.evidenceMats['lm:' + lm] = mat(hex);
      }
      const ground = this.root.getObjectByName('ground');
      const colour = (mesh, kind) => {
        if (mesh.userData.ownMaterial === undefined) mesh.userData.ownMaterial = mesh.material;
        mesh.material = this.evidence ? this.evidenceMats[kind] || this.evidenceMats.neutral : mesh.userData.ownMaterial;
      };
      if (ground) ground.traverse((o) => { if (o.isMesh) colour(o, 'lm:' + this.landmarkOf(o)); });
      for (const [id, node] of this.props) {
        const kind = EVIDENCE.props[id];
        node.traverse((o) => { if (o.isMesh) colour(o, kind); });
      }
      if (!this.evidence && this.shownLandmark) { this.shownLandmark = null; $('info').style.display = 'none'; }
      this.dirty = true;
      return this.evidence;
    },

    groundAt(clientX, clientY) {
      const rect = this.renderer.domElement.getBoundingClientRect();
      const ndc = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
      this.raycaster.setFromCamera(ndc, this.camera);
      const ground = this.root.getObjectByName('ground');
      for (const hit of this.raycaster.intersectObjects(ground ? [ground] : [], true)) {
        const lm = this.landmarkOf(hit.object);
        if (lm && EVIDENCE.landmarks[lm]) return lm;
      }
      return null;
    },

    // the basis of a landmark: its kind of evidence, each source's words (or the choice and its reason), and
    // where the other readings put it
    describeLandmark(id) {
      const L = EVIDENCE.landmarks[id];
      if (!L) throw new Error(`no evidence for ${id}`);
      const box = $('info');
      box.innerHTML = '';
      const name = document.createElement('div');
      name.className = 'name';
      name.textContent = `${id} ${L.label_en || ''}`;
      const kind = document.createElement('div');
      kind.className = 'role kind';
      const sw = document.createElement('i');
      sw.style.background = EVIDENCE.legend[L.evidence].colour;
      kind.append(sw, EVIDENCE.legend[L.evidence].label, L.placed_by ? ` — ${L.placed_by}` : '');
      const list = document.createElement('ul');
      list.className = 'basis';
      for (const line of basisLines(L.basis)) {
        const li = document.createElement('li');
        li.textContent = line;
        list.append(li);
      }
      box.append(name, kind, list);
      const alts = Object.entries(L.alternatives || {});
      if (alts.length) {
        const other = document.createElement('div');
        other.className = 'role';
        other.textContent = '其他讀法 other readings: ' + alts.map(([r, a]) =>
          `${r}: ${a.from_here_m > 0.005 ? a.from_here_m.toFixed(2) + ' m away' : 'the same place'} (${a.evidence || '—'})`).join('; ');
        box.append(other);
      }
      box.style.display = 'block';
      box.classList.add('pinned');
      this.shownLandmark = id;
      return {id, evidence: L.evidence, basis: basisLines(L.basis), alternatives: L.alternatives || {}};
    },

    addGhost(ghost) {
      // B: every material made a translucent blue-grey (depth not written, so A shows through)
      const tint = new THREE.Color(0x2f6fb0);
      ghost.scene.traverse((o) => {
        if (o.isMesh) {
          const mats = Array.isArray(o.material) ? o.material : [o.material];
          const ghosts = mats.map((m) => {
            const g = m.clone();
            g.transparent = true;
            g.opacity = 0.38;
            g.depthWrite = false;
            if (g.color) g.color.lerp(tint, 0.55);
            return g;
          });
          o.material = Array.isArray(o.material) ? ghosts : ghosts[0];
          o.renderOrder = 1;
        }
        if (o.userData && o.userData.actor) this.ghostPeople.set(o.userData.actor, o);
        else if (o.userData && o.userData.prop) this.ghostProps.set(o.userData.prop, o);
      });
      this.scene.add(ghost.scene);
      this.ghostRoot = ghost.scene;
      this.ghostMixer = new THREE.AnimationMixer(ghost.scene);
      this.ghostActions = ghost.animations.map((clip) => this.ghostMixer.clipAction(clip).play());
    },

    render() {
      if (!this.film) this.controls.update();
      this.renderer.render(this.scene, this.camera);
      this.labels.render(this.scene, this.camera);
      this.placeTags();
      this.dirty = false;
      this.frames = (this.frames || 0) + 1;
    },

    // name tags as in the video: only the people of the current act (and the one picked), at most MAX_TAGS,
    // each at the first free spot over its head, none over another or under a panel; the rest hidden
    placeTags() {
      const tags = [...this.people.values()].map((o) => o.userData.tag);
      for (const t of tags) t.classList.add('off');
      if (!this.tags) return [];
      const e = currentEvent(this.time);
      let want = e ? e.actors.filter((a) => this.people.has(a)) : [];
      if (this.pinned && this.people.has(this.pinned)) want = [this.pinned, ...want.filter((a) => a !== this.pinned)];
      const W = window.innerWidth, H = window.innerHeight;
      const taken = panelRects();
      const placed = [];
      for (const actor of want) {
        if (placed.length >= MAX_TAGS) break;
        const tag = this.people.get(actor).userData.tag;
        if (tag.parentElement.style.display === 'none') continue;     // behind the camera (the CSS2D test)
        tag.classList.remove('off');
        const h = tag.offsetHeight + 3, w = tag.offsetWidth / 2 + 6;
        let spot = null;
        for (const [dx, dy] of [[0, 0], [0, -h], [w, 0], [-w, 0], [w, -h], [-w, -h], [0, -2 * h], [0, h]]) {
          tag.style.transform = `translate(${dx}px, ${dy}px)`;
          const r = tag.getBoundingClientRect();
          if (r.left < 0 || r.top < 0 || r.right > W || r.bottom > H) continue;
          if (taken.some((p) => overlaps(r, p)) || placed.some((p) => overlaps(r, p))) continue;
          spot = {actor, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
          break;
        }
        if (spot) placed.push(spot);
        else tag.classList.add('off');
      }
      this.placed = placed;
      return placed;
    },

    resize() {
      const host = $('view');
      this.camera.aspect = host.clientWidth / host.clientHeight;
      this.camera.updateProjectionMatrix();
      this.renderer.setSize(host.clientWidth, host.clientHeight);
      this.labels.setSize(host.clientWidth, host.clientHeight);
      if (this.film) this.followFilm();
      else if (this.fitted && this.preset) this.setPreset(this.preset);
      this.dirty = true;
    },

    // the screen rectangle of the ground's box (the scene's `ground` node: the hall, the range, the walls)
    groundRect() {
      this.camera.updateMatrixWorld(true);
      const b = this.groundBox;
      const r = {left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity};
      const W = window.innerWidth, H = window.innerHeight;
      for (const x of [b.min.x, b.max.x]) for (const y of [b.min.y, b.max.y]) for (const z of [b.min.z, b.max.z]) {
        const p = new THREE.Vector3(x, y, z).project(this.camera);
        const sx = ((p.x + 1) / 2) * W, sy = ((1 - p.y) / 2) * H;
        r.left = Math.min(r.left, sx); r.right = Math.max(r.right, sx);
        r.top = Math.min(r.top, sy); r.bottom = Math.max(r.bottom, sy);
      }
      return r;
    },

    // move the camera (same direction of view) until the ground's box fills what the panels leave free
    fitGround() {
      const cam = this.camera, target = this.controls.target;
      for (let i = 0; i < 12; i++) {
        const free = freeRect(), box = this.groundRect();
        const fw = free.right - free.left, fh = free.bottom - free.top;
        const bw = box.right - box.left, bh = box.bottom - box.top;
        const scale = Math.max(bw / fw, bh / fh) / 0.97;
        const dx = (free.left + free.right) / 2 - (box.left + box.right) / 2;
        const dy = (free.top + free.bottom) / 2 - (box.top + box.bottom) / 2;
        if (Math.abs(scale - 1) < 0.01 && Math.abs(dx) < 1 && Math.abs(dy) < 1) break;
        const dist = cam.position.distanceTo(target);
        const perPx = (2 * dist * Math.tan((cam.fov * Math.PI) / 360)) / window.innerHeight;
        const right = new THREE.Vector3().setFromMatrixColumn(cam.matrixWorld, 0);
        const up = new THREE.Vector3().setFromMatrixColumn(cam.matrixWorld, 1);
        const shift = right.multiplyScalar(-dx * perPx).add(up.multiplyScalar(dy * perPx));
        cam.position.add(shift);
        target.add(shift);
        const back = cam.position.clone().sub(target).multiplyScalar(scale);
        cam.position.copy(target).add(back);
        cam.lookAt(target);
        cam.updateMatrixWorld(true);
      }
      this.controls.update();
    },

    // -- the kiosk: after `idle` ms without input, the film plays the attract loop's clips (DATA.attract) along
    // the camera path; any input stops it and brings back the first view
    input() {
      this.lastInput = performance.now();
      if (this.attract) this.stopAttract();
    },

    startAttract() {
      if (!FILM) return;
      this.attract = {clip: 0, speed: this.speed, started: this.time};
      document.body.classList.add('attract');
      this.pinned = null;
      this.setFilm(true);
      this.setTime(DATA.attract[0].start);
      this.playing = true;
      this.dirty = true;
    },

    attractStep(dt) {
      const clips = DATA.attract;
      let c = clips[this.attract.clip];
      let t = this.time + dt * c.speed;
      if (t >= c.end) {
        this.attract.clip = (this.attract.clip + 1) % clips.length;
        c = clips[this.attract.clip];
        t = c.start;
      }
      this.setTime(t);
    },

    stopAttract() {
      const a = this.attract;
      this.attract = null;
      document.body.classList.remove('attract');
      this.pause();
      this.speed = a.speed;
      this.setFilm(false);
      this.setPreset('overview');
      this.setTime(0);
    },

    setTime(t) {
      if (!this.mixer) return this.time;                // not loaded yet
      if (!Number.isFinite(t)) return this.time;
      this.time = Math.min(DURATION, Math.max(0, t));
      for (const a of this.actions) a.time = this.time;
      this.mixer.update(0);
      this.root.updateMatrixWorld(true);
      if (this.ghostMixer) {
        this.ghostTime = Math.min(CMP.duration_b, Math.max(0, ghostTimeAt(this.time)));
        for (const a of this.ghostActions) a.time = this.ghostTime;
        this.ghostMixer.update(0);
        this.ghostRoot.updateMatrixWorld(true);
      }
      showCaption(this.time);
      if (this.film) this.followFilm();
      if (this.pinned) this.describe(this.pinned, true);
      this.dirty = true;
      return this.time;
    },

    play() {
      if (this.time >= DURATION) this.setTime(0);
      this.playing = true;
      $('play').textContent = '❚❚ 停';
    },

    pause() {
      this.playing = false;
      $('play').textContent = '▶ 播';
    },

    showTags(on) {
      this.tags = !!on;
      $('labels').classList.toggle('hidden', !this.tags);
      $('tags').classList.toggle('on', this.tags);
      this.dirty = true;
    },

    // the film: the camera follows the video's camera path (FILM, the keys of docs/camera-path.md)
    setFilm(on) {
      this.film = !!on && !!FILM;
      this.controls.enabled = !this.film;
      $('film').classList.toggle('on', this.film);
      if (this.film) {
        $('presets').value = '';
        this.preset = null;
        this.followFilm();
      }
      this.dirty = true;
    },

    followFilm() {
      // the camera path's keys at this.time, in glTF's Y-up frame
      const k = filmAt(this.time);
      this.camera.position.set(...toYup(k.eye));
      this.camera.up.set(...toYup(k.up));
      this.controls.target.set(...toYup(k.target));
      this.camera.lookAt(this.controls.target);
      this.camera.fov = containFov(k.vfov, this.camera.aspect);
      this.camera.updateProjectionMatrix();
      this.camera.updateMatrixWorld(true);
    },

    // a difference of the compare page: its moment, and for a landmark the camera turned to it
    jump(i) {
      const d = CMP.differences[i];
      this.pause();
      this.setTime(d.moment);
      if (d.at) {
        if (this.film) this.setFilm(false);
        const to = new THREE.Vector3(...toYup(d.at));
        const off = this.camera.position.clone().sub(this.controls.target);
        const dist = Math.min(off.length(), 30);
        this.controls.target.copy(to);
        this.camera.position.copy(to).add(off.setLength(dist));
        this.controls.update();
        this.preset = null;
        $('presets').value = '';
      }
      for (const li of document.querySelectorAll('#diffs li')) li.classList.toggle('on', li.dataset.index === String(i));
      this.dirty = true;
      return this.time;
    },

    setPreset(name) {
      if (this.film) this.setFilm(false);
      const p = DATA.presets[name];
      if (!p) throw new Error(`no camera preset ${name}`);
      this.camera.up.set(0, 1, 0);
      this.camera.position.set(...p.eye);
      this.camera.fov = p.fov;
      this.camera.updateProjectionMatrix();
      this.controls.target.set(...p.target);
      this.controls.update();
      this.camera.updateMatrixWorld(true);
      this.fitted = !!p.fit;
      if (p.fit) this.fitGround();
      $('presets').value = name;
      this.preset = name;
      this.dirty = true;
    },

    personAt(clientX, clientY) {
      const rect = this.renderer.domElement.getBoundingClientRect();
      const ndc = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
      this.raycaster.setFromCamera(ndc, this.camera);
      const people = [...this.people.values()];
      for (const hit of this.raycaster.intersectObjects(people, true)) {
        let o = hit.object;
        while (o && !(o.userData && o.userData.actor)) o = o.parent;
        if (o && hit.object.visible) return o.userData.actor;
      }
      return null;
    },

    hover(ev, click) {
      const who = this.personAt(ev.clientX, ev.clientY);
      if (this.evidence && click && !who) {
        const lm = this.groundAt(ev.clientX, ev.clientY);
        if (lm) {
          this.pinned = null;
          this.describeLandmark(lm);
          const box = $('info');
          box.style.left = `${Math.min(ev.clientX + 14, window.innerWidth - 370)}px`;
          box.style.top = `${Math.max(Math.min(ev.clientY - 20, freeRect().bottom - box.offsetHeight), 10)}px`;
          return;
        }
      }
      if (this.shownLandmark && !click) return;                // the basis stays until the next click
      this.shownLandmark = null;
      if (click) this.pinned = who;
      const show = who || this.pinned;
      if (!show) { $('info').style.display = 'none'; return; }
      this.describe(show, !who || click || show === this.pinned);
      const box = $('info');
      box.style.left = `${Math.min(ev.clientX + 14, window.innerWidth - 370)}px`;
      box.style.top = `${Math.max(ev.clientY - 20, 10)}px`;
    },

    describe(actor, pinned) {
      const p = DATA.people[actor] || {label: actor, role: ''};
      const c = clauseOf(actor, this.time);
      const box = $('info');
      box.innerHTML = '';
      const name = document.createElement('div');
      name.className = 'name';
      name.textContent = p.label;
      const role = document.createElement('div');
      role.className = 'role';
      role.textContent = `${p.role}${p.aliases && p.aliases.length ? ' · ' + p.aliases.join('、') : ''}`;
      const clause = document.createElement('div');
      clause.className = 'clause';
      const when = c ? {now: '今', last: '前', next: '後'}[c.when] : '';
      clause.textContent = c ? `${when} ${c.event.shown}${c.event.footnote != null ? ' (注 ' + c.event.footnote + ')' : ''}` : '—';
      const gloss = document.createElement('div');
      gloss.className = 'role';
      gloss.textContent = c ? c.event.gloss : '';
      box.append(name, role, clause, gloss);
      box.style.display = 'block';
      box.classList.toggle('pinned', !!pinned);
      for (const [id, o] of this.people) o.userData.tag.classList.toggle('active', id === actor);
      this.dirty = true;
      return {name: p.label, role: p.role, clause: c ? c.event.shown : null, when: c ? c.when : null,
              footnote: c ? c.event.footnote : null};
    },
  };

  function worldOf(idOrName) {
    const o = view.people.get(idOrName) || view.props.get(idOrName) || view.nodes.get(idOrName);
    if (!o) throw new Error(`no node ${idOrName}`);
    return toPlan(o.getWorldPosition(new THREE.Vector3()));
  }

  // -- the test and kiosk API
  let resolveReady, rejectReady;
  window.xiangshe = {
    ready: new Promise((ok, bad) => { resolveReady = ok; rejectReady = bad; }),
    duration: DURATION,
    setTime: (t) => view.setTime(t),
    time: () => view.time,
    play: () => view.play(),
    pause: () => view.pause(),
    playing: () => view.playing,
    setSpeed: (s) => { view.speed = s; },
    worldPosition: (idOrName) => round(worldOf(idOrName), 5),
    people: () => [...view.people.keys()],
    props: () => [...view.props.keys()],
    caption: () => {
      const e = currentEvent(view.time);
      return {id: e ? e.id : null, text: $('cap-zh').textContent, gloss: $('cap-en').textContent,
              footnote: $('cap-fn').textContent};
    },
    presets: () => Object.keys(DATA.presets),
    film: (on) => { view.setFilm(on); view.render(); return view.film; },
    setPreset: (name) => { view.setPreset(name); view.render(); },
    camera: () => ({position: round(toPlan(view.camera.position), 4), target: round(toPlan(view.controls.target), 4),
                    fov: view.camera.fov}),
    describe: (actor) => view.describe(actor, true),
    screenPoint: (actor) => {
      const p = view.people.get(actor).getWorldPosition(new THREE.Vector3());
      p.y += 1.2;
      p.project(view.camera);
      const rect = view.renderer.domElement.getBoundingClientRect();
      return [rect.left + (p.x + 1) / 2 * rect.width, rect.top + (1 - p.y) / 2 * rect.height];
    },
    showTags: (on) => view.showTags(on),
    render: () => { view.render(); return view.frames; },
    // the kiosk: the name tags shown ({actor, left, top, right, bottom}), the panels' and the ground's screen
    // rectangles, the attract loop (its state; idle(s) sets the time without input before it starts)
    tags: () => { view.render(); return view.placed; },
    panels: () => panelRects(),
    groundRect: () => view.groundRect(),
    project: (p) => {
      const v = new THREE.Vector3(...toYup(p)).project(view.camera);
      return [((v.x + 1) / 2) * window.innerWidth, ((1 - v.y) / 2) * window.innerHeight, v.z];
    },
    attract: () => (view.attract ? {clip: view.attract.clip, time: view.time, film: !!view.film} : null),
    idle: (s) => { if (s !== undefined) { view.idle = 1000 * s; view.lastInput = performance.now(); } return view.idle / 1000; },
    filmKey: (t) => filmAt(t),
    // the compare page: B's time and B's people (plan frame) as the ghost shows them; the list of differences
    ghostTime: () => view.ghostTime,
    ghostPeople: () => [...view.ghostPeople.keys()],
    ghostPosition: (id) => {
      const o = view.ghostPeople.get(id) || view.ghostProps.get(id);
      if (!o) throw new Error(`no ghost ${id}`);
      return round(toPlan(o.getWorldPosition(new THREE.Vector3())), 5);
    },
    differences: () => [...document.querySelectorAll('#diffs li')].map((li) => ({
      index: +li.dataset.index, moment: +li.dataset.moment, text: li.textContent,
      visible: li.getBoundingClientRect().height > 0})),
    jump: (i) => view.jump(i),
    // the evidence view: on/off, the colour (hex) a landmark's or a prop's meshes show, a landmark's basis
    evidence: (on) => { if (on !== undefined) view.setEvidence(on); view.render(); return view.evidence; },
    evidenceColour: (id) => {
      const ground = view.root.getObjectByName('ground');
      let found = null;
      const look = (o) => { if (!found && o.isMesh) found = '#' + o.material.color.getHexString(); };
      if (view.props.has(id)) view.props.get(id).traverse(look);
      else if (ground) ground.traverse((o) => { if (o.isMesh && view.landmarkOf(o) === id) look(o); });
      return found;
    },
    describeLandmark: (id) => view.describeLandmark(id),
    legend: () => [...document.querySelectorAll('#legend div')].map((d) => ({kind: d.dataset.kind, text: d.textContent,
      visible: d.getBoundingClientRect().height > 0})),
  };

  fillPage();
  Promise.all([loadGltf(), loadFilm(), CMP ? loadGltf('xs-ghost') : null]).then(([gltf, , ghost]) => {
    view.init(gltf, ghost);
    view.render();
    $('status').remove();
    resolveReady(true);
  }).catch((err) => {
    $('status').textContent = `載入失敗 could not load the scene: ${err}`;
    rejectReady(err);
  });
})();
