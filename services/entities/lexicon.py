"""Curated word lists for offline entity extraction (no model, no network).

Tools and organisations map a lower-case spelling to the name shown; words that are also
ordinary English ("rust", "swift", "linear") only count when capitalised."""

from __future__ import annotations

_TOOLS = """
Python JavaScript TypeScript Kotlin Ruby PHP Golang Rust Swift Java Scala Elixir Haskell Lua
Node.js Deno Bun React Vue Svelte Angular Next.js Nuxt Django Flask FastAPI Rails Spring
Laravel PostgreSQL MySQL SQLite Redis MongoDB Elasticsearch OpenSearch Kafka RabbitMQ
Docker Podman Kubernetes Helm Terraform Ansible Pulumi AWS GCP Azure S3 EC2 Git GitHub
GitLab Bitbucket Jira Confluence Slack Discord Notion Figma Linear Trello Asana Zoom
VS Code VSCode Neovim Vim Emacs IntelliJ PyCharm WebStorm Xcode Cursor Zed Claude ChatGPT
Claude Code Ollama PyTorch TensorFlow NumPy pandas Jupyter pytest Jest Vitest Playwright
Cypress webpack Vite npm pnpm Yarn pip Poetry uv conda Homebrew Bash Zsh tmux Grafana
Prometheus Datadog Sentry Vercel Netlify Heroku Cloudflare Stripe Supabase Firebase Chroma
peewee PySide6 Qt Excel Gmail Obsidian 1Password Bitwarden macOS Linux Ubuntu Debian Fedora
Arch Windows iOS Android nginx Caddy GraphQL ruff mypy Black ESLint Prettier Copilot
SQLAlchemy Celery Airflow Spark Snowflake dbt BigQuery Tableau Looker Postman Raycast
Firefox Chrome Safari iTerm2 Alacritty WezTerm Ghostty Hugo Jekyll Astro Tailwind Bootstrap
Storybook Storybook Sass Rollup esbuild Babel Gradle Maven CMake Bazel Nix Nginx Traefik
Keycloak Auth0 Okta Twilio SendGrid Mailchimp HubSpot Salesforce Zendesk Intercom Miro
Loom Calendly Dropbox OneDrive Teams Outlook Chroma ONNX MiniLM LangChain LlamaIndex
HuggingFace Hugging Face Anki Todoist Things Spotify Kindle Garmin Strava Duolingo
Ollama LM Studio Mistral Gemini Llama Whisper CircleCI Jenkins Buildkite Argo ArgoCD
Grafana Loki Tempo Kibana Logstash Splunk PagerDuty Opsgenie Metabase Superset Redshift
DuckDB ClickHouse Cassandra DynamoDB Lambda CloudFront Route53 Fargate ECS EKS GKE AKS
restic Proxmox Zotero Swagger OpenAPI Spotlight MinIO Rustlings Go RQ Kayak Mastodon
WhatsApp Signal Telegram Trello Keynote PowerPoint Word Pages Photoshop Lightroom Blender
Unity Unreal Godot Arduino RaspberryPi Tailscale WireGuard OpenVPN Caddy Ollama Audacity
""".split()
# multi-word tools (the split above breaks them)
_TOOLS_MULTI = [
    "VS Code",
    "Claude Code",
    "Hugging Face",
    "LM Studio",
    "Google Docs",
    "Google Drive",
    "Google Calendar",
    "GitHub Actions",
    "Apple Notes",
    "Visual Studio",
    "Sublime Text",
    "Home Assistant",
]
_SPLIT_PARTS = {"VS", "Code", "Hugging", "Face", "LM", "Studio", "Claude"}
# ordinary words: only a capitalised spelling names the tool
AMBIGUOUS = set(
    (
        "rust swift linear spark cursor black lambda spring bun things teams arch zoom chrome "
        "safari loom chroma tempo argo pip windows ruby java notion slack discord excel git vim "
        "uv helm nix zed mistral whisper gemini llama loki kindle miro outlook bootstrap hugo "
        "astro ghostty yarn poetry jest sass babel maven celery pandas anki claude"
    ).split()
)

TOOLS: dict[str, str] = {}
for _t in _TOOLS + _TOOLS_MULTI:
    if _t in _SPLIT_PARTS:
        continue
    TOOLS.setdefault(_t.lower(), _t)
for _k, _v in {
    "postgres": "PostgreSQL",
    "psql": "PostgreSQL",
    "k8s": "Kubernetes",
    "js": "JavaScript",
    "ts": "TypeScript",
    "node": "Node.js",
    "nodejs": "Node.js",
    "golang": "Go",
    "vscode": "VS Code",
    "gh": "GitHub",
    "nvim": "Neovim",
    "mongo": "MongoDB",
    "sqlite3": "SQLite",
    "tf": "Terraform",
    "chatgpt": "ChatGPT",
    "gpt-4": "GPT-4",
    "gpt-4o": "GPT-4o",
    "openai api": "OpenAI API",
}.items():
    TOOLS[_k] = _v
for _short in ("js", "ts", "node", "tf", "gh"):
    AMBIGUOUS.add(_short)

ORGS: dict[str, str] = {
    o.lower(): o
    for o in """Google Microsoft Apple Amazon Meta Facebook OpenAI Anthropic Netflix Spotify IBM
    Oracle Mozilla Shopify Atlassian Stripe Airbnb Uber Lyft Tesla SpaceX Nvidia Intel AMD
    Samsung Sony Siemens SAP Bosch Deloitte Accenture McKinsey PwC KPMG Zalando Booking.com
    Adyen Revolut Monzo Wise Klarna N26 Canonical RedHat JetBrains Vercel Cloudflare DeepMind
    Mistral Cohere HuggingFace Twitter LinkedIn Reddit Dropbox Salesforce Adobe Intuit Wikipedia
    NASA UNICEF UN EU WHO NHS BBC Reuters""".split()
}
for _amb in ("meta", "wise", "apple", "amazon", "intel", "who", "un", "eu"):
    AMBIGUOUS.add(_amb)
ORG_SUFFIXES = set(
    (
        "Inc Inc. Ltd Ltd. LLC GmbH AG SA BV Corp Corp. Corporation Labs Technologies Systems "
        "University Foundation Bank Group Agency Institute Studio Studios Partners Consulting "
        "Health Hospital School College Council Ministry Co. Software Analytics"
    ).split()
)

PLACES = {
    p.lower(): p
    for p in """London Paris Berlin Madrid Barcelona Lisbon Porto Rome Milan Amsterdam Rotterdam
    Brussels Vienna Zurich Geneva Munich Hamburg Frankfurt Cologne Prague Warsaw Krakow Budapest
    Copenhagen Stockholm Oslo Helsinki Dublin Edinburgh Manchester Bristol Athens Istanbul
    Tokyo Kyoto Osaka Seoul Beijing Shanghai Shenzhen Singapore Bangkok Mumbai Delhi Bangalore
    Sydney Melbourne Auckland Toronto Vancouver Montreal Boston Chicago Seattle Portland Austin
    Denver Miami Atlanta Berkeley Oakland Brooklyn Manhattan Cairo Nairobi Lagos Johannesburg
    Mexico Bogota Lima Santiago Buenos Aires Sao Paulo Rio Montevideo Valencia Seville Lyon
    Marseille Nice Bordeaux Toulouse Napoli Florence Venice Turin Bologna Leipzig Dresden
    Germany France Spain Portugal Italy Netherlands Belgium Austria Switzerland Poland Sweden
    Norway Denmark Finland Ireland Scotland England Wales Greece Turkey Japan Korea China India
    Australia Canada Brazil Argentina Chile Colombia Peru Kenya Nigeria Egypt Morocco Israel
    Iceland Estonia Latvia Lithuania Czechia Hungary Romania Bulgaria Croatia Slovenia Serbia
    Ukraine Vietnam Thailand Indonesia Malaysia Philippines Taiwan California Texas Oregon
    Bavaria Catalonia Andalusia Tuscany Provence Brittany Normandy Ohio Florida Yorkshire
    Cornwall Devon Berlin-Kreuzberg Kreuzberg Neukoelln Shoreditch Hackney Camden""".split()
}
PLACES_MULTI = {
    "new york": "New York",
    "san francisco": "San Francisco",
    "los angeles": "Los Angeles",
    "buenos aires": "Buenos Aires",
    "sao paulo": "Sao Paulo",
    "hong kong": "Hong Kong",
    "united states": "United States",
    "united kingdom": "United Kingdom",
    "new zealand": "New Zealand",
    "mexico city": "Mexico City",
    "cape town": "Cape Town",
    "tel aviv": "Tel Aviv",
    "the hague": "The Hague",
    "bay area": "Bay Area",
    "new jersey": "New Jersey",
    "rio de janeiro": "Rio de Janeiro",
}
PLACES.pop("buenos", None)
PLACES.pop("aires", None)
PLACES.pop("sao", None)
PLACES.pop("paulo", None)
AMBIGUOUS.update({"nice", "mexico", "rio", "turkey", "wales", "devon", "lima", "chile"})

FIRST_NAMES = set(
    """Aaron Adam Adrian Agnes Ahmed Aisha Alan Albert Alejandro Alex Alexander Alexandra Ali
    Alice Alicia Amelia Amir Amy Ana Andrea Andreas Andrew Andy Angela Anna Anne Antonio Anya
    Arjun Astrid Ben Benjamin Bernd Bianca Bob Boris Brian Bruno Carla Carlos Carmen Caroline
    Charlie Charlotte Chen Chris Christian Christina Claire Clara Daniel Daniela David Diana
    Diego Dmitri Elena Eli Elias Elif Elisa Elizabeth Ella Emily Emma Eric Erik Eva Fatima Felix
    Fernando Finn Florian Francesca Frank Freya Gabriel Gabriela George Georg Grace Greta Hana
    Hannah Hans Harry Helen Henrik Hiro Hugo Ian Ibrahim Ines Ingrid Irene Isabel Isabella Ivan
    Jack Jacob Jake James Jan Jana Jane Javier Jean Jens Jessica Jin Joan Joao Joe Johan John
    Jonas Jordan Jorge Jose Joseph Josh Juan Julia Julian Julie Jun Kai Karen Karim Karl Kate
    Katie Kenji Kevin Kim Klaus Lara Laura Lea Lena Leo Leon Liam Lin Lina Linda Lisa Lucas
    Lucia Luis Luisa Luka Lukas Maja Marco Marcus Maria Marie Mario Mark Marta Martin Mary
    Mateo Matt Matthew Max Maya Mehmet Mei Mia Michael Michelle Miguel Mike Mila Ming Mira
    Mohammed Nadia Naomi Nathan Nico Nicolas Nina Noah Nora Olga Oliver Olivia Omar Oscar Pablo
    Paolo Patrick Paul Paula Pedro Peter Petra Philipp Pierre Priya Rafael Rahul Raj Ravi Rebecca
    Richard Rita Robert Robin Rosa Ryan Sam Samuel Sandra Sara Sarah Sebastian Sergei Simon
    Sofia Sophie Stefan Steve Susan Sven Tanya Thomas Tim Tobias Tom Tomas Valentina Vera
    Victor Viktor Wei Will William Xin Yara Yuki Yusuf Zara Zoe Lars Ole Nils Kofi Amara Chidi
    Ngozi Tariq Layla Hassan Leila Dario Ilse Birgit Ute Dieter Rolf Ruth Sean Siobhan Aoife
    Ciaran Anil Sunita Deepa Vikram Arun Meera Kwame Yaw Esi Thabo Sipho Lerato Rui
    Goncalo Beatriz Tiago Marek Piotr Kasia Agnieszka Tomasz Jakub Ondrej Mikko Aino Eero""".split()
)

# capitalised words that start sentences or name things that are not entities
STOP = set(
    """I I'm I've I'd I'll A An The This That These Those It Its He She They We You Me My Our
    Their His Her Him Them Us Your User Users User's Always Never Use Uses Using Used Prefer
    Prefers Preferred Do Does Don't Did When Whenever If Else For In On At By Also Note Notes
    Today Yesterday Tomorrow Tonight Monday Tuesday Wednesday Thursday Friday Saturday Sunday
    January February March April May June July August September October November December
    Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Mon Tue Wed Thu Fri Sat Sun
    Yes No Not Ok OK Okay Please Thanks Thank Hi Hello Dear TODO FIXME NB PS Re Fwd Todo
    Remember Remind Reminder Keep Make Run Check Add Avoid Try Ask Tell Send Call Book Buy Fix
    After Before During Since Until While With Without Within From To Of And Or But So Then
    Because As Is Are Was Were Be Been Has Have Had Will Would Should Could Can Must Might
    There Here What Which Who Whom Whose Why How Where Every Each All Any Some Most Many Much
    Both Either Neither One Two Three First Second Third Last Next New Old Big Small Good Bad
    Project Projects Team Meeting Meetings Standup Sprint Release Deadline Bug Issue Issues PR
    Wants Likes Works Lives Moved Based Has Needs Said Says Asked Told Thinks Knows Started
    English French German Spanish Italian Portuguese Dutch Chinese Japanese Korean Russian
    Arabic Hindi Mom Mum Dad Grandma Grandpa Christmas Easter Ramadan Diwali Halloween
    Q1 Q2 Q3 Q4 EOD ETA FYI ASAP API APIs CLI UI UX CI CD DB SQL HTTP HTTPS JSON YAML CSV PDF
    URL README OS AM PM UTC CET PST EST GMT Mr Mrs Ms Dr Prof Sir Morning Evening Afternoon
    Weekend Week Month Year Summer Winter Spring Autumn Fall Working Work Home Office Doctor
    Dentist Gym Birthday Anniversary Vacation Holiday Trip Flight Hotel Dinner Lunch Breakfast
    Main Default Important Current Currently Usually Often Sometimes Rarely Only Just Still
    Recently Lately Soon Later Now Once Twice Again Already Maybe Probably Actually Really
    Setup Config Deploy Deploys Deployment Tests Test Testing Build Builds Docs Documentation
    Backend Frontend Database Server Client Clients Customer Customers Manager Boss Friend
    Wife Husband Partner Sister Brother Mother Father Son Daughter Colleague Colleagues
    Teammate Neighbour Neighbor Cousin Uncle Aunt Kid Kids Baby Cat Dog REDACTED Ping Email
    Text Message Meet Invite Congratulate Follow Schedule Cancel Review Merge Deploy Dev Prod
    Staging Start Stop Open Close Read Write Update Install Upgrade Delete Create""".split()
)

PERSON_CUES = set(
    (
        "with colleague colleagues manager boss friend wife husband partner sister brother "
        "mother father mom mum dad son daughter cousin uncle aunt teammate coworker co-worker "
        "met asked told cc ping thank thanks named called neighbour neighbor mentor intern lead "
        "cto ceo founder recruiter landlord doctor therapist tutor coach girlfriend boyfriend "
        "fiancé fiancée and by from to email call meet meeting invite remind ask tell dr mr mrs "
        "ms prof"
    ).split()
)
PERSON_VERBS = set(
    (
        "said says wants wanted asked asks prefers preferred likes liked loves hates reviewed "
        "reviews leads led manages managed works worked lives lived mentioned thinks suggested "
        "recommended joined owns is was will has had needs reports moved approved merged wrote "
        "sent called emailed plays runs uses maintains handles agreed promised signed started "
        "left visited"
    ).split()
)
PROJECT_CUES = set(
    (
        "project repo repository codebase app service library package crate module monorepo "
        "plugin extension"
    ).split()
)
PLACE_CUES = {"in", "to", "from", "near", "visiting", "visit", "visited", "around"}
PLACE_VERBS = set(
    (
        "lives live living moved moving based relocated born grew trip travel travelling "
        "traveling flying flew visiting visit visited holiday vacation office conference"
    ).split()
)
ORG_CUES = set(
    "at for joined client customer employer company startup vendor acquired partner".split()
)
ORG_VERBS = set(
    (
        "works work working worked employed joined join interning contracting consulting "
        "interview interviewing interviewed left job hired offer client customer"
    ).split()
)
REPO_STOP = set(
    (
        "and/or w/o i/o input/output read/write yes/no tcp/ip on/off either/or he/him she/her "
        "they/them n/a 24/7 ci/cd a/b km/h cd/ci true/false pros/cons ui/ux dev/prod "
        "staging/prod client/server frontend/backend light/dark sync/async"
    ).split()
)

# "the Orion launch", "the Beacon dashboard": after "the/our/my" these name a project
PROJECT_AFTER_THE = PROJECT_CUES | {
    "launch", "dashboard", "pipeline", "roadmap", "rfc", "experiments", "experiment", "api",
    "cli", "sdk", "backend", "frontend", "release", "migration", "website", "site", "server",
    "worker", "bot", "prototype", "beta", "mvp",
}  # fmt: skip
GEO_PREFIXES = {"Lake", "Mount", "Mt", "River", "Cape", "Port", "Saint", "St", "Fort", "Isle",
                "Gulf", "Lago", "Monte"}  # fmt: skip
ORG_JOIN = {"joined", "joining", "join", "acquired", "left"}
ORG_VERBS |= {"studied", "studies", "studying", "teaches", "intern", "role", "position"}
_MORE_TOOLS = """restic Proxmox Zotero Swagger OpenAPI Spotlight MinIO Rustlings Go RQ Kayak
Mastodon WhatsApp Signal Telegram Keynote PowerPoint Photoshop Lightroom Blender Unity Godot
Arduino Tailscale WireGuard OpenVPN Audacity""".split()
for _t in _MORE_TOOLS + ["ONNX Runtime", "Raspberry Pi", "Docker Compose", "Google Sheets"]:
    TOOLS.setdefault(_t.lower(), _t)
AMBIGUOUS |= {"go", "signal", "keynote", "unity", "spotlight", "kayak", "telegram"}
AMBIGUOUS.discard("uv")
FIRST_NAMES.discard("Dev")
STOP |= set(
    """Ping Email Text Message Meet Invite Congratulate Follow Schedule Cancel Review Merge
    Deploy Dev Prod Staging Start Stop Open Close Read Write Update Install Upgrade Delete
    Create""".split()
)
