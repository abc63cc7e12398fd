// The viewer of the Village Archery Ceremony: the embedded GLB played with three.js, captions of
// the current event, a scrubber marked with the footnotes, camera presets, orbit, name tags and
// the person under the pointer.  Uses the global THREE of the inlined bundle; fetches nothing.
// window.xiangshe is a small API for tests and kiosks (plan coordinates: x east, y north, z up).
(function () {
  'use strict';
  const DATA = JSON.parse(document.getElementById('xs-data').textContent);
  const $ = (id) => document.getElementById(id);
  const EVENTS = DATA.events;                     // sorted by start
  const DURATION = DATA.duration;

  // -- frames: glTF Y-up (x, y up, z south) <-> plan (x east, y north, z up)
  const toPlan = (v) => [v.x, -v.z, v.y];
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
    for (const [name, p] of Object.entries(DATA.presets)) {
      const b = document.createElement('button');
      b.textContent = p.label;
      b.dataset.preset = name;
      b.addEventListener('click', () => view.setPreset(name));
      $('presets').append(b);
    }
    document.addEventListener('keydown', (ev) => {
      if (ev.code === 'Space' && ev.target.tagName !== 'SELECT') {
        ev.preventDefault();
        view.playing ? view.pause() : view.play();
      }
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

  // -- the scene
  async function loadGltf() {
    const b64 = $('xs-scene').textContent.trim();
    const zipped = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const stream = new Blob([zipped]).stream().pipeThrough(new DecompressionStream('gzip'));
    const buf = await new Response(stream).arrayBuffer();
    return new Promise((ok, bad) => new THREE.GLTFLoader().parse(buf, '', ok, bad));
  }

  const view = {
    time: 0, playing: false, speed: 5, tags: true, dirty: true, pinned: null,
    people: new Map(), props: new Map(), nodes: new Map(),

    init(gltf) {
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
      Object.assign(this, {renderer, labels, scene, camera, controls, root: gltf.scene});

      gltf.scene.traverse((o) => {
        this.nodes.set(o.name, o);
        if (o.userData && o.userData.actor) {
          this.people.set(o.userData.actor, o);
          const tag = document.createElement('div');
          tag.className = 'tag';
          tag.textContent = o.userData.actor;             // the text's own name (司射, 上耦上射 …)
          tag.title = (DATA.people[o.userData.actor] || {}).label || '';
          const obj = new THREE.CSS2DObject(tag);
          obj.position.set(0, 1.95, 0);
          o.add(obj);
          o.userData.tag = tag;
        } else if (o.userData && o.userData.prop) {
          this.props.set(o.userData.prop, o);
        }
      });
      // the clip is posed at an absolute time (action.time, then update(0)): no loop or clamp
      // bookkeeping of the mixer's own clock, so scrubbing back and forth is exact
      this.mixer = new THREE.AnimationMixer(gltf.scene);
      this.actions = gltf.animations.map((clip) => this.mixer.clipAction(clip).play());
      this.raycaster = new THREE.Raycaster();
      renderer.domElement.addEventListener('pointermove', (ev) => this.hover(ev, false));
      renderer.domElement.addEventListener('click', (ev) => this.hover(ev, true));
      window.addEventListener('resize', () => this.resize());
      this.setPreset('overview');
      this.setTime(0);
      let last = performance.now();
      const loop = (now) => {
        const dt = Math.min(0.25, (now - last) / 1000);
        last = now;
        if (this.playing) {
          const t = this.time + dt * this.speed;
          this.setTime(t);
          if (t >= DURATION) this.pause();
        }
        if (this.dirty) this.render();
        requestAnimationFrame(loop);
      };
      requestAnimationFrame(loop);
    },

    render() {
      this.controls.update();
      this.renderer.render(this.scene, this.camera);
      this.labels.render(this.scene, this.camera);
      this.dirty = false;
      this.frames = (this.frames || 0) + 1;
    },

    resize() {
      const host = $('view');
      this.camera.aspect = host.clientWidth / host.clientHeight;
      this.camera.updateProjectionMatrix();
      this.renderer.setSize(host.clientWidth, host.clientHeight);
      this.labels.setSize(host.clientWidth, host.clientHeight);
      this.dirty = true;
    },

    setTime(t) {
      if (!this.mixer) return this.time;                // not loaded yet
      this.time = Math.min(DURATION, Math.max(0, t));
      for (const a of this.actions) a.time = this.time;
      this.mixer.update(0);
      this.root.updateMatrixWorld(true);
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

    // the film: the camera follows the video's camera path (the scene's animated camera node, DATA.film)
    setFilm(on) {
      this.film = !!on && !!DATA.film && this.nodes.has(DATA.film.node);
      $('film').classList.toggle('on', this.film);
      if (this.film) {
        for (const b of document.querySelectorAll('#presets button')) b.classList.remove('on');
        this.preset = null;
        this.followFilm();
      }
      this.dirty = true;
    },

    followFilm() {
      // the scene's camera node, posed by the animation at this.time (the glTF camera of the camera path)
      const node = this.nodes.get(DATA.film.node);
      if (!node) return;
      node.updateWorldMatrix(true, false);
      const p = node.getWorldPosition(new THREE.Vector3());
      const q = node.getWorldQuaternion(new THREE.Quaternion());
      this.camera.position.copy(p);
      this.camera.quaternion.copy(q);
      this.camera.fov = DATA.film.fov;
      this.camera.updateProjectionMatrix();
      this.controls.target.copy(p).add(new THREE.Vector3(0, 0, -10).applyQuaternion(q));
    },

    setPreset(name) {
      if (this.film) this.setFilm(false);
      const p = DATA.presets[name];
      if (!p) throw new Error(`no camera preset ${name}`);
      this.camera.position.set(...p.eye);
      this.camera.fov = p.fov;
      this.camera.updateProjectionMatrix();
      this.controls.target.set(...p.target);
      this.controls.update();
      for (const b of document.querySelectorAll('#presets button')) b.classList.toggle('on', b.dataset.preset === name);
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
  };

  fillPage();
  loadGltf().then((gltf) => {
    view.init(gltf);
    view.render();
    $('status').remove();
    resolveReady(true);
  }).catch((err) => {
    $('status').textContent = `載入失敗 could not load the scene: ${err}`;
    rejectReady(err);
  });
})();
