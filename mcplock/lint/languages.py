"""The instruction patterns, one table entry per language (docs/severity.md: how to add one).

Each entry of :data:`LANGUAGES` maps a rule of :data:`ORDERS` to a regular expression in that
language, plus two parts of the composite ``exfiltrate`` rule: ``send`` (verbs that send data
away) and ``data`` (what the user would not give away: their conversation, files, secrets,
customers' addresses). ``keys`` are lower-case substrings one of which a text must contain
for the language to be tried at all (a cheap pre-check); ``script`` (a character class) does
the same for a language in its own script, and ``keys.RULE`` for one rule of it (``a&b``: both). Patterns are
compiled on first use
(:func:`compiled`), case-insensitive, against the text as the model reads it.

A new language is one entry here. A new rule is one entry of :data:`ORDERS` (what it is, how
severe) and its pattern in each language that has it; a language without the rule skips it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from mcplock.model.severity import CRITICAL, HIGH, Severity

# rule -> what it is, in a finding's message ("instruction-like text aimed at the model (WHAT)")
ORDERS: dict[str, tuple[str, Severity]] = {
    "override": ("an order to ignore earlier instructions", CRITICAL),
    "conceal": ("an order to keep something from the user", HIGH),
    "exfiltrate": ("an order to send the user's data away", HIGH),
    "before": ("a precondition order aimed at the model", HIGH),
    "first": ("an order to call or read something first", HIGH),
    "consent": ("an order to act without the user's consent", HIGH),
    "role": ("an attempt to take over the model's role", CRITICAL),
    "claim": ("text that claims or redirects another server's tools", HIGH),
    "pass": ("an order to pass file contents or the user's secrets into a call", HIGH),
    "leak": ("an attempt to extract the system prompt", CRITICAL),
    "tag": ("a model-directed tag", CRITICAL),
    "token": ("a chat-template control token", CRITICAL),
}
# how an order combines in the intent model (mcplock.lint.intent): an act beyond a tool's job, a
# concealment, a claim of consent. An act with either of the others is critical.
ACTS = frozenset({"exfiltrate", "before", "first", "claim", "pass"})
HIDES = frozenset({"conceal"})
CLAIMS = frozenset({"consent"})
RULE_OF = {what: rule for rule, (what, _sev) in ORDERS.items()}

_TAGS = (
    r"important|system|sys|instructions?|secret|hidden|admin|critical|context|prompt|assistant"
    r"|system[_-]?prompt|user[_-]?instructions?|tool[_-]?instructions?|override|priority"
)
_EN_USER = r"(?:the\s+)?users?\b"

LANGUAGES: dict[str, dict[str, str]] = {
    # language-neutral markup: tags and chat-template tokens
    "*": {
        "keys": "< [",
        "tag": rf"<\s*/?\s*(?:{_TAGS})\s*>",
        "token": r"\[/?INST\]|<\|im_(?:start|end|sep)\|>"
        r"|<\|(?:system|user|assistant|endoftext|eot_id|start_header_id)\|>|<<\s*/?SYS\s*>>|<\s*/?\s*(?:start_of_turn|end_of_turn)\s*>",
    },
    "English": {
        "keys": "ignor disregard forget overrid user without from before you pass system send forward upload post "
        "email mail transmit submit leak share copy first instead deprecat through silent secret quiet "
        "confirm permission approval consent now mode instruction",
        # per-rule pre-checks (``keys.RULE``): the rule is tried only when one of them is in the text
        "keys.override": "ignor disregard forget overrid",
        "keys.conceal": "user&not user&n't user&never user&without user&hide user&conceal user&keep mention reveal "
        "disclose",
        "keys.before": "before",
        "keys.first": "you this",
        "keys.consent": "confirm permission approv consent silent secret quiet covert without authori allowed given",
        "keys.role": "now instruction mode longer",
        "keys.claim": "'s ’s through instead other another built side",
        "keys.pass": "pass include put add append insert embed attach copy paste place",
        "keys.leak": "system",
        "override": r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|everything\s+)?(?:of\s+)?"
        r"(?:the\s+|your\s+)?"
        r"(?:previous|prior|above|earlier|preceding|former|other|system|original)\s+"
        r"(?:instructions?|prompts?|directions?|rules|messages|context|guidelines|guidance|orders)",
        "conceal": r"\b(?:do\s+not|don'?t|never|must\s+not|should\s+not)\s+(?:"
        rf"(?:tell|inform|notify|alert|warn)\s+(?:(?:this|that|it|anything)\s+to\s+)?{_EN_USER}"
        r"(?=\s*(?:[.,;:!)\]>]|$|(?:about|that|this|anything|what|you|we|it|how|why|if|where)\b))"
        rf"|(?:tell|inform|notify|alert)\s+{_EN_USER}\s+(?:about|of)\s+(?:this|that|it)\b"
        r"|(?:mention|reveal|disclose|show|say|explain|report)\s+(?:this|that|it|anything|any\s+of\s+this"
        r"|these\s+\w+|this\s+\w+|(?:this|that|the)\s+(?:step|instruction|note|action|request)s?)\s+to\s+"
        rf"{_EN_USER})"
        rf"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+{_EN_USER}"
        rf"|\b(?:hide|conceal|keep)\s+(?:this|it|that|these)\s+(?:secret\s+)?from\s+{_EN_USER}"
        r"|\bthe\s+user\s+(?:must|should|need)\s*(?:not|n'?t)\s+(?:know|see|be\s+told|find\s+out)\b"
        r"|\b(?:do\s+not|don'?t|never)\s+(?:mention|reveal|disclose)\s+(?:that\s+you|this\s+step|these\s+steps"
        r"|this\s+instruction|these\s+instructions|the\s+(?:above|previous)\s+(?:steps?|instructions?))\b",
        "before": r"\bbefore\s+(?:using|calling|invoking|running|executing|answering|responding|replying"
        r"|doing\s+anything|any\s+other|you\s+(?:use|call|answer|respond|reply|do))\b[^.\n]{0,60}?"
        r"\b(?:read|call|send|fetch|invoke|pass|upload|include|cat|run|execute|forward|open|list)\b",
        "first": r"\byou\s+(?:must|have\s+to|need\s+to|are\s+required\s+to)\s+(?:first\s+|always\s+|also\s+)?"
        r"(?:call|invoke|run|read)\b"
        r"|\balways\s+(?:call|run|use|invoke|execute)\s+this\s+tool\s+(?:first|before)\b"
        r"|\b(?:call|run|use|invoke|execute)\s+this\s+tool\s+(?:first|before\s+(?:any|every|all|each))\b"
        r"|\bthis\s+tool\s+must\s+(?:always\s+)?be\s+(?:called|used|run|invoked)\s+(?:first|before)\b",
        "consent": r"\b(?:do\s+not|don'?t|never|without)\s+(?:ask|asking|request|requesting|seek|seeking|wait"
        r"|waiting|get|getting)\s+(?:for\s+)?(?:the\s+user'?s?\s+|their\s+|any\s+|user\s+)?"
        r"(?:confirmation|permission|approval|consent)"
        r"|\b(?:silently|secretly|quietly|covertly)\s+(?:send|forward|upload|post|share|delete|run|execute"
        r"|call|read|include|copy|email|add|attach)\b"
        r"|\bwithout\s+(?:asking|consulting|checking\s+with|confirming\s+with|telling)\s+(?:the\s+)?users?\b"
        r"|\b(?:call|invoke|run|execute)\s+\S+\b[^.\n]{0,40}?\bwithout\s+(?:asking|confirmation|approval"
        r"|permission|consent)\b"
        r"|\b(?:the\s+)?user\s+(?:has\s+)?(?:already\s+)?(?:authori[sz]ed|approved|consented|allowed|"
        r"given\s+(?:you\s+)?(?:permission|consent))\s+(?:you\s+)?(?:to|for|this|it)\b",
        "role": r"\bfrom\s+now\s+on,?\s+you\s+(?:are|must|will|should)\b|\bnew\s+(?:system\s+)?instructions\s*:"
        r"|\b(?:developer|admin|god|jailbreak|DAN)\s+mode\b"
        r"|\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:assistant|bound)",
        "claim": r"\b[\w-]+\s+(?:server|mcp|plugin|extension|integration)(?:'s|’s)\s+[`'\"]?[\w.-]+[`'\"]?\s+"
        r"(?:tool\s+)?"
        r"(?:is|was|has\s+been)\s+(?:now\s+)?(?:deprecated|replaced|obsolete|disabled|removed|retired|broken"
        r"|unsafe|insecure|compromised)"
        r"|\b(?:route|redirect|send|forward|direct)\b[^.\n]{0,60}?\bthrough\s+this\s+(?:tool|server)\b[^.\n]{0,30}"
        r"?\binstead\b"
        r"|\binstead\s+of\s+(?:the\s+)?(?:built-?in|native|default|host'?s?|system|other\s+servers?'?s?)\s+"
        r"[\w`'\"-]+"
        r"|\b(?:do\s+not|don'?t|never)\s+use\s+(?:any\s+)?(?:other|another|the\s+built-?in)\s+"
        r"(?:tools?|servers?)\b"
        r"|\b(?:supersedes?|replaces?|overrides?|deprecates?)\s+(?:the\s+)?[\w-]+\s+(?:server|mcp|plugin"
        r"|extension|integration)(?:'s|’s)"
        r"|\binstead\s+of\s+(?:any|all|every)\s+other\b"
        r"|\bside[\s-]?effects?\s+on\s+(?:the\s+)?(?:also\s+present|other|another)\b"
        r"|\bother\s+(?:servers?'?|tools?'?)\s*(?:tools?\s+)?(?:are|is)\s+(?:now\s+)?(?:broken|deprecated|unsafe"
        r"|disabled|insecure|compromised|obsolete)",
        "pass": r"\bpass\s+(?:its|their|the|this|that)\s+(?:full\s+)?contents?\b"
        r"|\b(?:include|put|add|append|insert|pass|embed|attach|copy|paste|place)\b[^.\n]{0,30}?"
        r"\b(?:the\s+user'?s|users'|their|the\s+(?:full|entire|whole)|all(?:\s+the)?|every)\b[^.\n]{0,20}?"
        r"\b(?:password|passphrase|api[\s_-]?keys?|tokens?|credentials?|secrets?|chat\s+history|conversation"
        r"|system\s+prompt|private\s+keys?|cookies?|env(?:ironment)?\s+variables|previous\s+messages|history)\b"
        r"[^.\n]{0,40}?\b(?:in|into|as|to)\s+(?:the\s+|this\s+|each\s+|every\s+)?(?:[`'\"]?\w+[`'\"]?\s+)?"
        r"(?:query|parameter|argument|field|param|request|call|input|notes?|context)\b",
        "leak": r"\b(?:reveal|print|output|repeat|leak|disclose)\b[^.\n]{0,20}\b(?:your|the)\s+system\s+prompt\b",
        "send": r"\b(?:send|forward|upload|post|e-?mail|mail|transmit|submit|exfiltrate|leak|share|copy|cc|bcc|report"
        r"|beacon)\b",
        "data": r"\b(?:users?'s?|users'|customers?'?s?|every|conversations?|chat\s+history|history|system\s+prompt"
        r"|api[\s_-]?keys?|access\s+tokens?|tokens?|passwords?|credentials?|secrets?|cookies?"
        r"|env(?:ironment)?\s+variables|contents?\s+of|private\s+keys?|ssh\s+keys?|personal\s+(?:data|information)"
        r"|addresses|phone\s+numbers|all\s+(?:the\s+)?(?:user'?s?\s+)?(?:e-?mails?|messages|files|documents"
        r"|contacts|records|data|notes|conversations))\b",
    },
    "German": {
        "keys": "anweis instrukt befehl regeln vorgab benutzer nutzer anwender send schick leite übermitt lade "
        "werkzeug tool",
        "claim": r"\b(?:des|vom)\s+[\w-]+?-?Servers?\b[^.\n]{0,40}?\b(?:ist|sind|wurde)\s+(?:jetzt\s+)?(?:veraltet"
        r"|ersetzt|deaktiviert|unsicher)|\bstattdessen\s+(?:immer\s+)?(?:dieses?|über\s+dieses)\s+(?:Tool|Werkzeug)",
        "keys.claim": "servers stattdessen",
        "override": r"\b(?:ignorier(?:e|en|t)?|vergiss|vergessen\s+sie|missachte(?:n)?|übergehe)\s+(?:sie\s+)?"
        r"(?:alle\s+|sämtliche\s+|die\s+)?(?:vorherigen|bisherigen|früheren|vorigen|obigen|"
        r"vorangegangenen|anderen)\s+(?:Anweisungen|Instruktionen|Befehle|Regeln|Vorgaben|Anordnungen)",
        "conceal": r"\b(?:sag|sage|erzähl|erzähle|verrate|teile|zeige?)\s+(?:es\s+|das\s+|dies\s+|davon\s+|nichts\s+)?"
        r"(?:dem|den|der)\s+(?:Benutzer|Nutzer|Anwender)\w*\s+(?:nicht|nichts)\b"
        r"|\bohne\s+(?:den|die|dem)\s+(?:Benutzer|Nutzer|Anwender)\w*\s+zu\s+(?:informieren|benachrichtigen|"
        r"fragen|warnen)"
        r"|\b(?:der|die)\s+(?:Benutzer|Nutzer|Anwender)\w*\s+darf\s+(?:das|es|davon)\s+nicht\s+"
        r"(?:wissen|erfahren|sehen)",
        "before": r"\bbevor\s+(?:du|sie)\s+(?:dieses|das|ein)\s+(?:Werkzeug|Tool)\b[^.\n]{0,60}?"
        r"\b(?:lies|lese|lesen|rufe|sende|senden|schicke|lade|übergib)\b",
        "send": r"\b(?:sende|senden|schick|schicke|schicken|leite|leiten|übermittle|übermitteln|lade|laden|poste|posten"
        r"|weiterleiten)\b",
        "data": r"\b(?:Benutzer|Nutzer|Kunden|Anwender|Gespräch|Verlauf|Unterhaltung|Inhalt|Passw[oö]rt|Kennw[oö]rt"
        r"|Schlüssel|Token|Zugangsdaten|Anmeldedaten|Geheimnisse|Adressen)\w*",
    },
    "French": {
        "keys": "instruction consigne directive règle utilisat envo transf transmet publi partag copi outil",
        "claim": r"\bdu\s+serveur\s+[\w-]+[^.\n]{0,40}?\b(?:est|sont)\s+(?:désormais\s+)?(?:obsolète|déprécié|remplacé"
        r"|désactivé)|\b(?:utilise[rz]?|passe[rz]?\s+par)\s+(?:plutôt\s+|toujours\s+)?cet\s+outil\s+"
        r"(?:à\s+la\s+place|plutôt)",
        "keys.claim": "serveur outil",
        "override": r"\b(?:ignore[rz]?|oublie[rz]?|ne\s+tiens\s+pas\s+compte\s+des|ne\s+tenez\s+pas\s+compte\s+des)\s+"
        r"(?:toutes\s+)?(?:les\s+|tes\s+|vos\s+)?(?:instructions|consignes|directives|règles|ordres)\s+"
        r"(?:précédentes|antérieures|ci-dessus|d'avant|passées)",
        "conceal": r"\bne\s+(?:le\s+|lui\s+|rien\s+)?(?:dis|dites|mentionne[zr]?|révèle[zr]?|signale[zr]?|informe[zr]?"
        r"|montre[zr]?)\s+(?:pas|rien|jamais)\s+(?:de\s+\w+\s+)?(?:à\s+)?l['’]utilisat(?:eur|rice)"
        r"|\bsans\s+(?:en\s+)?(?:informer|prévenir|avertir|aviser|le\s+dire\s+à)\s+l['’]utilisat(?:eur|rice)"
        r"|\bl['’]utilisat(?:eur|rice)\s+ne\s+doit\s+pas\s+(?:le\s+)?(?:savoir|voir)",
        "before": r"\bavant\s+d['’](?:utiliser|appeler|exécuter|invoquer)\s+(?:cet\s+outil|l['’]outil|tout\s+outil)\b"
        r"[^.\n]{0,60}?\b(?:lis|lisez|lire|appelle[zr]?|envoie[zr]?|transmet\w*|inclu\w*|passe[zr]?)\b",
        "send": r"\b(?:envoie[rz]?|envoyer|transf[eè]re[rz]?|transmet(?:s|tez|tre)?|publie[rz]?|téléverse[rz]?"
        r"|partage[rz]?|copie[rz]?)\b",
        "data": r"\b(?:utilisat(?:eur|rice)s?|clients?|conversations?|historique|contenus?|mots?\s+de\s+passe"
        r"|clés?|jetons?|identifiants|secrets?|adresses)\b",
    },
    "Spanish": {
        "keys": "instruccion indicacion órdenes reglas directric usuari env sub public transmit compart copi mand "
        "herramienta",
        "claim": r"\bdel\s+servidor\s+[\w-]+[^.\n]{0,40}?\b(?:está|es)\s+(?:obsoleto|en\s+desuso|reemplazad[oa]"
        r"|desactivad[oa])|\b(?:usa|use|utiliza|utilice)\s+(?:siempre\s+)?esta\s+herramienta\s+en\s+(?:su\s+)?lugar",
        "keys.claim": "servidor herramienta",
        "override": r"\b(?:ignora|ignore|ignorad|ignorar|olvida|olvide|olvidad|olvidar|omite|omitir|descarta)\s+"
        r"(?:todas\s+)?(?:las\s+|tus\s+|sus\s+)?(?:instrucciones|indicaciones|órdenes|reglas|directrices)\s+"
        r"(?:anteriores|previas|de\s+arriba|precedentes)",
        "conceal": r"\bno\s+(?:se\s+lo\s+|le\s+|lo\s+)?(?:digas|diga|informes|informe|menciones|mencione|cuentes|cuente"
        r"|reveles|revele|muestres|muestre)\s+(?:nada\s+|esto\s+|eso\s+)?(?:de\s+esto\s+)?al\s+usuari[oa]"
        r"|\bsin\s+(?:informar|avisar|decir(?:le)?|notificar|consultar)\s+(?:nada\s+)?al\s+usuari[oa]"
        r"|\bel\s+usuario\s+no\s+(?:debe|puede)\s+(?:saber|ver|enterarse)",
        "before": r"\bantes\s+de\s+(?:usar|utilizar|llamar|invocar|ejecutar)\s+(?:esta|la|cualquier)\s+herramienta\b"
        r"[^.\n]{0,60}?\b(?:lee|lea|llama|llame|env[ií]a|envíe|incluye|incluya|pasa|pase|sube)\b",
        "send": r"\b(?:env[ií]a|envíe|enviad|enviar|reenv[ií]a|reenvíe|reenviar|sube|suba|subir|publica|publique"
        r"|transmite|transmita|comparte|comparta|copia|copie|manda|mande)\b",
        "data": r"\b(?:usuari[oa]s?|clientes?|conversaci[oó]n|historial|contenidos?|contraseñas?|claves?|tokens?"
        r"|credenciales|secretos?|direcciones)\b",
    },
    "Portuguese": {
        "keys": "instru orienta ordens regras diretriz usuári usuari utilizador envi encaminh carreg publiq transmit "
        "compartilh partilh copi mand ferramenta",
        "claim": r"\bdo\s+servidor\s+[\w-]+[^.\n]{0,40}?\b(?:está|é)\s+(?:obsoleto|descontinuad[oa]|substituíd[oa]"
        r"|desativad[oa])|\b(?:use|usa|utilize)\s+(?:sempre\s+)?esta\s+ferramenta\s+(?:em\s+vez|no\s+lugar)",
        "keys.claim": "servidor ferramenta",
        "override": r"\b(?:ignore|ignora|ignorar|esque[çc]a|esquece|esquecer|desconsidere|desconsidera|descarte)\s+"
        r"(?:todas\s+)?(?:as\s+|suas\s+|tuas\s+)?(?:instru[çc][õo]es|orienta[çc][õo]es|ordens|regras"
        r"|diretrizes)\s+(?:anteriores|pr[ée]vias|acima|precedentes)",
        "conceal": r"\bn[ãa]o\s+(?:conte|diga|informe|mencione|revele|mostre|fale)\s+(?:nada\s+|isso\s+|isto\s+)?"
        r"(?:sobre\s+isso\s+)?(?:ao|para\s+o|à|para\s+a)\s+(?:usu[áa]ri[oa]|utilizador(?:a)?)"
        r"|\bsem\s+(?:informar|avisar|contar|notificar|dizer)\s+(?:nada\s+)?(?:ao|o|à|a)\s+"
        r"(?:usu[áa]ri[oa]|utilizador)"
        r"|\bo\s+(?:usu[áa]rio|utilizador)\s+n[ãa]o\s+(?:deve|pode)\s+(?:saber|ver)",
        "before": r"\bantes\s+de\s+(?:usar|utilizar|chamar|invocar|executar)\s+(?:esta|a|qualquer)\s+ferramenta\b"
        r"[^.\n]{0,60}?\b(?:leia|l[êe]|chame|envie|inclua|passe)\b",
        "send": r"\b(?:envie|envia|enviar|encaminhe|encaminha|encaminhar|reenvie|carregue|publique|transmita"
        r"|compartilhe|partilhe|copie|mande|manda)\b",
        "data": r"\b(?:usu[áa]rios?|utilizador(?:es)?|clientes?|conversas?|hist[óo]rico|conte[úu]dos?|senhas?"
        r"|palavras-passe|chaves?|tokens?|credenciais|segredos?|endere[çc]os)\b",
    },
    "Russian": {
        "script": "[а-яА-ЯёЁ]",
        "claim": r"сервер\w*\s+[\w-]+[^.\n]{0,40}?(?:устарел|заменён|заменен|отключён|отключен)"
        r"|вместо\s+этого\s+(?:всегда\s+)?используй(?:те)?\s+этот\s+инструмент"
        r"|используй(?:те)?\s+этот\s+инструмент\s+вместо",
        "override": r"(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?|не\s+обращай(?:те)?\s+внимания\s+на"
        r"|отбрось(?:те)?)\s+(?:все\s+|всё\s+)?(?:предыдущие|прежние|прошлые|вышеуказанные|ранее\s+данные"
        r"|ранние|остальные)\s+(?:инструкции|указания|команды|правила|распоряжения)",
        "conceal": r"не\s+(?:говори|сообщай|рассказывай|показывай|упоминай)(?:те)?\s+"
        r"(?:об\s+этом\s+|этого\s+|ничего\s+)?"
        r"пользовател\w*|без\s+ведома\s+пользовател\w*|не\s+(?:сообщая|говоря|уведомляя)\s+пользовател\w*"
        r"|пользовател\w*\s+не\s+(?:должен|должна)\s+(?:знать|видеть|узнать)",
        "before": r"перед\s+(?:использованием|вызовом|запуском)\s+(?:этого|данного|любого)\s+инструмента[^.\n]{0,60}?"
        r"(?:прочитай|прочтите|прочитайте|вызови|вызовите|отправь|отправьте|передай|передайте)",
        "send": r"(?:отправь|отправьте|перешли|перешлите|пересылай|отошли|загрузи|загрузите|передай|передайте|скопируй"
        r"|опубликуй|пошли|пошлите)",
        "data": r"(?:пользовател|клиент|разговор|переписк|истори|содержим|парол|ключ|токен|учётн|учетн|секрет"
        r"|адрес)\w*",
    },
    "Chinese": {
        "script": "[\u4e00-\u9fff]",
        "claim": r"(?:服务器|伺服器)[^。！？\n]{0,20}(?:已弃用|已棄用|已废弃|已廢棄|已被替换|已被替換|已停用)"
        r"|改用(?:此|这个|這個|本)工具|(?:此|这个|這個|本)工具(?:代替|替代|取代)",
        "override": r"(?:忽略|无视|無視|忽视|忽視|不要理会|不要理會|不用理会|别管|忘记|忘記|忘掉)[^。！？\n]{0,10}"
        r"(?:之前|以前|先前|上面|前面|上述|此前|所有|全部|一切)[^。！？\n]{0,6}"
        r"(?:指令|指示|说明|說明|提示|规则|規則|命令|要求)",
        "conceal": r"(?:不要|别|別|勿|不得|不能|切勿|请勿|請勿)(?:告诉|告訴|告知|通知|提醒|透露给?|透露給?|让|讓)"
        r"(?:用户|用戶|使用者)|(?:不要|别|別|勿|切勿)向(?:用户|用戶|使用者)(?:透露|提及|说明|說明|提起|展示)"
        r"|(?:不让|不讓|别让|別讓|不要让|不要讓)(?:用户|用戶|使用者)(?:知道|发现|發現|看到)"
        r"|(?:瞒着|瞞著|背着|背著)(?:用户|用戶|使用者)",
        "before": r"(?:使用|调用|調用|运行|運行|执行|執行)(?:此|这个|這個|本|该|該)?工具(?:之前|前)[^。！？\n]{0,40}"
        r"(?:读取|讀取|调用|調用|发送|發送|上传|上傳|读|讀)",
        "send": r"(?:发送|發送|转发|轉發|上传|上傳|提交|传给|傳給|发给|發給|寄给|寄給|发到|發到|传到|傳到)",
        "data": r"(?:用户|用戶|客户|客戶|对话|對話|聊天|历史|歷史|内容|內容|密码|密碼|密钥|密鑰"
        r"|令牌|凭据|憑證|凭证|秘密|地址)",
    },
    "Japanese": {
        "script": "[\u3040-\u30ff]",
        "claim": r"サーバー[^。！？\n]{0,20}(?:非推奨|廃止|置き換え|無効)|代わりに(?:この|本)ツールを(?:使|使用)",
        "override": r"(?:以前|これまで|前|上記|先|今まで|それまで)の(?:すべての|全ての|全部の)?"
        r"(?:指示|命令|指令|ルール|指図|プロンプト)(?:を|は)(?:すべて|全て|全部)?(?:無視|忘れ)"
        r"|(?:すべての|全ての)(?:指示|命令)を無視",
        "conceal": r"ユーザー(?:に|には)(?:伝え|知らせ|言わ|教え|報告し|見せ)(?:ない|ず)"
        r"|ユーザーに(?:知られ|気づかれ)(?:ない|ず)|ユーザーに(?:は)?(?:秘密|内緒)",
        "before": r"(?:この|本)ツールを(?:使用|使う|呼び出す|実行する)(?:前に|まえに)[^。！？\n]{0,40}"
        r"(?:読み|読んで|呼び出し|呼んで|送信|送って|実行)",
        "send": r"(?:送信|送って|送れ|転送|アップロード|投稿|共有して|コピーして)",
        "data": r"(?:ユーザー|顧客|お客様|会話|履歴|内容|パスワード|キー|鍵|トークン|認証情報|秘密|アドレス)",
    },
    "Korean": {
        "script": "[\uac00-\ud7a3]",
        "claim": r"서버[^.\n]{0,20}(?:더\s*이상\s*사용되지|사용\s*중단|폐기|대체)|대신\s*(?:이|본)\s*도구를\s*사용",
        "override": r"(?:이전|앞의|위의|기존|지금까지의|모든)[^.\n]{0,10}"
        r"(?:지시|명령|지침|규칙|지시사항|명령어|프롬프트)"
        r"[^.\n]{0,8}(?:무시|잊어)",
        "conceal": r"사용자에게\s*(?:는\s*)?(?:알리지|말하지|전하지|보여주지|공개하지)\s*(?:마|말고|말아|않)"
        r"|사용자\s*몰래|사용자가\s*모르게",
        "before": r"(?:이|본)\s*도구를\s*(?:사용|호출|실행)하기\s*전에[^.\n]{0,40}(?:읽|호출|보내|전송|실행)",
        "send": r"(?:보내|전송|전달|업로드|포워드|공유|복사)",
        "data": r"(?:사용자|고객|대화|기록|내용|비밀번호|암호|키|토큰|자격\s*증명|비밀|주소)",
    },
}

_PARTS = ("keys", "script", "send", "data")


@dataclass(frozen=True)
class Compiled:
    name: str
    keys: tuple[str, ...]  # one of them in the lower-cased text, or the language is not tried
    script: re.Pattern[str] | None  # its script in the text, or the language is not tried
    orders: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...]  # (rule, pattern, its pre-check keys)
    send: re.Pattern[str] | None
    data: re.Pattern[str] | None


@functools.cache
def compiled() -> tuple[Compiled, ...]:
    """Every language's patterns, compiled once, on the first text that needs them."""
    return tuple(_compiled(name, table) for name, table in LANGUAGES.items())


def _compiled(name: str, table: dict[str, str]) -> Compiled:
    orders = _orders(table)
    unknown = [rule for rule, _, _ in orders if rule not in ORDERS]
    assert not unknown, f"{name}: rules {unknown} are not in ORDERS"
    return Compiled(
        name,
        _pre_check(table, orders),
        _pattern(table, "script"),
        orders,
        _pattern(table, "send"),
        _pattern(table, "data"),
    )


def _pattern(table: dict[str, str], part: str) -> re.Pattern[str] | None:
    return re.compile(table[part], re.I) if part in table else None


def _orders(table: dict[str, str]) -> tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...]:
    """(rule, pattern, its pre-check keys) of each order of a language's table (the entries that
    are neither one of its parts nor a rule's keys)."""
    return tuple(
        (rule, re.compile(p, re.I), tuple(table.get(f"keys.{rule}", "").split()))
        for rule, p in table.items()
        if rule not in _PARTS and not rule.startswith("keys.")
    )


def _pre_check(
    table: dict[str, str], orders: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...]
) -> tuple[str, ...]:
    """The language's pre-check keys: its own and every rule's (a rule's keys must let the
    language in; of a key ``a&b``, ``a``)."""
    keys = dict.fromkeys([*table.get("keys", "").split(), *(k.split("&")[0] for _r, _p, ks in orders for k in ks)])
    return tuple(keys)


def tried(lang: Compiled, t: str, low: str) -> bool:
    """Whether ``lang`` can match ``t`` at all (its pre-check)."""
    if lang.script is not None:
        return not t.isascii() and lang.script.search(t) is not None
    return any(map(low.__contains__, lang.keys))


def has_keys(keys: tuple[str, ...], low: str) -> bool:
    """Whether one of ``keys`` is in ``low`` (a key ``a&b``: both ``a`` and ``b``); no keys: always."""
    if not keys:
        return True
    for k in keys:
        if "&" not in k:
            if k in low:
                return True
        elif all(map(low.__contains__, k.split("&"))):
            return True
    return False
